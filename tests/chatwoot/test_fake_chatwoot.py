"""The fake Chatwoot keeps Chatwoot's rules, so the desk's tests can fail for the reasons a real one
would: the token, the account, unique identifiers, statuses, the reopening of a resolved conversation
by an incoming message, and webhooks signed as Chatwoot 4.13+ signs them."""

from __future__ import annotations

import hashlib
import hmac
import json

import httpx

from tests.chatwoot.fake_chatwoot import ACCOUNT_ID, INBOX_ID, FakeChatwoot

BASE = f"/api/v1/accounts/{ACCOUNT_ID}"


async def test_the_rules(chatwoot: FakeChatwoot) -> None:
    headers = {"api_access_token": chatwoot.token}
    async with httpx.AsyncClient(base_url=chatwoot.url) as http:
        assert (await http.get("/api/v1/profile")).status_code == 401
        assert (await http.get(f"/api/v1/accounts/99/inboxes/{INBOX_ID}", headers=headers)).status_code == 401
        assert (await http.get(f"{BASE}/inboxes/99", headers=headers)).status_code == 404
        made = await http.post(f"{BASE}/contacts", headers=headers, json={"name": "Maria", "identifier": "x:1"})
        contact = made.json()["payload"]["contact"]
        again = await http.post(f"{BASE}/contacts", headers=headers, json={"name": "Maria", "identifier": "x:1"})
        assert again.status_code == 422 and "Identifier" in again.json()["message"]
        box = (await http.post(f"{BASE}/contacts/{contact['id']}/contact_inboxes", headers=headers,
                               json={"inbox_id": INBOX_ID, "source_id": "x:1"})).json()
        new = {"source_id": box["source_id"], "inbox_id": INBOX_ID}
        refused = await http.post(f"{BASE}/conversations", headers=headers, json={**new, "status": "closed"})
        assert refused.status_code == 422
        talk = (await http.post(f"{BASE}/conversations", headers=headers, json={**new, "status": "resolved"})).json()
        path = f"{BASE}/conversations/{talk['id']}"
        for content in ("um", "dois"):
            await http.post(f"{path}/messages", headers=headers, json={"content": content, "message_type": "incoming"})
        listed = (await http.get(f"{path}/messages", headers=headers)).json()["payload"]
        assert [m["content"] for m in listed] == ["um", "dois"] and listed[0]["id"] < listed[1]["id"]
        assert listed[0]["message_type"] == 0  # the API's views give the number
        assert (await http.get(path, headers=headers)).json()["status"] == "open"  # reopened by "um"


async def test_webhooks_are_signed_over_the_timestamp_and_the_body(chatwoot: FakeChatwoot) -> None:
    body = json.dumps({"event": "message_created"}).encode()
    headers = chatwoot.signed(body, timestamp=1700000000)
    expected = hmac.new(chatwoot.secret.encode(), b"1700000000." + body, hashlib.sha256).hexdigest()
    assert headers["X-Chatwoot-Signature"] == f"sha256={expected}"
    assert headers["X-Chatwoot-Timestamp"] == "1700000000" and headers["X-Chatwoot-Delivery"]
