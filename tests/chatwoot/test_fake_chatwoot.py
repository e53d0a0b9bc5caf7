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


async def test_files_messages_and_conversations_as_chatwoot_gives_them(chatwoot: FakeChatwoot) -> None:
    """A message in multipart with ``attachments[]`` (blank content allowed then), its file behind
    Active Storage's redirect (no token needed), the finders' ``after`` and the inbox's list."""
    headers = {"api_access_token": chatwoot.token}
    async with httpx.AsyncClient(base_url=chatwoot.url) as http:
        contact = (await http.post(f"{BASE}/contacts", headers=headers, json={"name": "Maria", "identifier": "x:2"},
                                   )).json()["payload"]["contact"]
        box = (await http.post(f"{BASE}/contacts/{contact['id']}/contact_inboxes", headers=headers,
                               json={"inbox_id": INBOX_ID, "source_id": "x:2"})).json()
        talk = (await http.post(f"{BASE}/conversations", headers=headers,
                                json={"source_id": box["source_id"], "inbox_id": INBOX_ID, "status": "pending"})).json()
        path = f"{BASE}/conversations/{talk['id']}/messages"
        blank = await http.post(path, headers=headers, json={"content": " ", "message_type": "incoming"})
        assert blank.status_code == 422
        sent = await http.post(path, headers=headers, data={"content": "", "message_type": "incoming"},
                               files=[("attachments[]", ("foto.jpg", b"\xff\xd8 jpeg", "image/jpeg"))])
        [attachment] = sent.json()["attachments"]
        assert attachment["file_type"] == "image" and "/rails/active_storage/blobs/redirect/" in attachment["data_url"]
        fetched = await http.get(attachment["data_url"], follow_redirects=True)  # no token
        assert fetched.content == b"\xff\xd8 jpeg"
        first = sent.json()["id"]
        await http.post(path, headers=headers, json={"content": "depois", "message_type": "incoming"})
        after = (await http.get(path, headers=headers, params={"after": first})).json()["payload"]
        assert [m["content"] for m in after] == ["depois"]
        listed = (await http.get(f"{BASE}/conversations", headers=headers,
                                 params={"inbox_id": INBOX_ID, "status": "pending"})).json()["data"]["payload"]
        assert [c["id"] for c in listed] == [talk["id"]] and listed[0]["last_activity_at"]
