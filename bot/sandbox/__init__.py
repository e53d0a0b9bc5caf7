"""A faithful local stand-in of the ISP management system's JSON web service.

Both generations are served on their real paths, with the spec's envelopes and quirks, keys with
environments and permitted operations, the state rules and error codes of part 3, a seeded data set
of a small ISP, ``Filtro`` evaluated for real, and faults on demand. Nothing here imports the client
(``bot/isp``): the sandbox is what the client is tested against.

Python API::

    from bot.sandbox import Sandbox, DEMO_IDENTITIES, PRODUCTION_KEY
    from bot.sandbox.clock import FixedClock

    sb = Sandbox.seeded(clock=FixedClock())     # or Sandbox.seeded(), Sandbox.from_file("mine.yaml")
    app = sb.app                                # ASGI app: httpx.ASGITransport(app=sb.app)
    sb.v2("ticket_update", {...})               # one call without HTTP (no faults, not counted)
    sb.call_count("ConsultaClientes")           # calls received over HTTP per operation; sb.reset_calls()
    sb.chat_messages(70001)                     # what chat_messages stored for a ticket, in order
    sb.faults.fail_next(2, "ticket_update")     # HTTP 500; also timeout_next, disconnect_next,
                                                # not_json_next, html_login_next, go_down/come_back,
                                                # add_latency(seconds, operation=None), clear()
    sb.settings.min_distance_to_execute = False # the system parameters the rules read
    sb.variants.set(pix_key="emv", data_prefix=True)  # the finance group's answer variants (see
                                                # bot.sandbox.variants); sb.variants.clear()
    sb.add_production_key("my-key")             # a production key for every operation
    sb.export(); sb.save("mine.json")           # the data set, in the shape from_file loads

    with SandboxServer(sb) as server:           # bot.sandbox.server: real HTTP on a free loopback port
        server.url; server.go_down(); server.come_back()   # go_down: connections refused

Seeded keys (``bot.sandbox.keys``): ``sandbox-production-key`` (production, every operation, user
ispbot), ``sandbox-homologation-key`` (homologation: validates, persists nothing), ``sandbox-restricted-key``
(production, only a few read operations), ``sandbox-inactive-key`` (inactive).

Choices where the spec is silent (codes in ``bot.sandbox.codes``):

- Unknown or inactive key: 1.0 erro_code 97 (the spec's); 2.0 error_code 97 too. An operation the key
  may not call: 96 in both. Unknown operation: 99. A body without exactly one root key: 95. A
  ``Filtro`` the sandbox refuses (syntax, comments, ``;``, unknown names or functions): 94.
- Invalid parameter values: 1.0 erro_code 2 with erro_detail naming the field (a missing one is the
  spec's 1); 2.0 uses the operation's documented validation code where it has one (12 for
  authentication_update/contact_*, 9 for client_group_insert) and 1 otherwise. A record named by a
  2.0 request that does not exist answers the operation's own documented code when it has one for
  that record (10 for contract transitions, 12 promotional discount, 14/27 contract html/address,
  6 ticket items, 16 chat_messages, 15 appointment update, ...) and 1 otherwise.
- contract_unblock moves B to A. A suspension of a contract that is not Active answers 10.
  ``advance_time`` makes scheduled suspensions effective on their start date (and reactivates when
  the days are over) and moves trial plans scheduled -> active -> finished.
- Service orders (``rules.tickets.OS_TRANSITIONS``): none -> in_queue/on_the_way; in_queue ->
  on_the_way/aborted/completed; on_the_way -> running/in_queue/aborted; running ->
  paused/completed/aborted; paused -> running/aborted; aborted -> in_queue; completed is final.
  Anything else is 15 listing the allowed targets; a closed ticket is 15 too.
- ticket_update/ticket_finish on a closed ticket: 13. ticket_finish's result on failure keeps the
  shape {messages: [], new_tickets: []}; ip_insert's failure keeps {ip_id: ""} and status "0".
- AtendimentoCadastro's SLA is the deadline (opening + SLA hours), SLA_Tipo "Horas";
  Situacao_Agendamento uses the 2.0 words (to_confirm, confirmed, canceled, completed).
- Queries under a homologation key read the same records; writes run on a copy that is thrown away.
- The generation-2.0 finance group (third document) is ``rules.billing``: its docstring lists its
  choices. Its temporary PDF links are the one route besides the two service paths
  (``/temp/<token>.pdf``, 404 once ``*_available`` minutes of the sandbox's clock have passed;
  ``sb.call_count("temporary_file")`` counts the downloads).
  The company's bills for contract ``DEMO_IDENTITIES.no_pix_contract`` come from a bank with no PIX.
"""

from bot.sandbox.clock import FixedClock
from bot.sandbox.keys import HOMOLOGATION_KEY, INACTIVE_KEY, PRODUCTION_KEY, RESTRICTED_KEY
from bot.sandbox.sandbox import Sandbox
from bot.sandbox.seed import DEMO_IDENTITIES

__all__ = [
    "DEMO_IDENTITIES",
    "HOMOLOGATION_KEY",
    "INACTIVE_KEY",
    "PRODUCTION_KEY",
    "RESTRICTED_KEY",
    "FixedClock",
    "Sandbox",
]
