"""Error codes the sandbox answers where the spec names none (each constant below says when).

Codes the spec names (1, 4, 97, 98, 135, 223 in 1.0; the per-operation codes of 2.0) are written
next to the rule that raises them, with the spec's meaning. Invalid parameter values: 1.0 answers 2
with erro_detail naming the field (a missing one is the spec's 1); 2.0 answers the operation's
documented validation code where it has one (12 for authentication_update and contact_*, 9 for
client_group_insert), else 1. A record a 2.0 request names that does not exist answers the
operation's own documented code for that record where it has one (10 contract transitions, 12
promotional discount, 14/27 contract html/address, 6 ticket items, 16 chat_messages, 15 appointment
update, ...), else 1.
"""

from __future__ import annotations

#: Generation 1.0: the query matched no rows, a required field is missing, a document is not found.
V1_NOT_FOUND = 1
#: Generation 1.0: a field holds a value outside its type, set or range (erro_detail names it).
V1_INVALID_FIELD = 2
#: Generation 1.0 change operations: the code of the record to change does not exist.
V1_INVALID_CODE = 4
#: Both generations: the Filtro is not a clause the sandbox accepts (syntax, unknown name, ...).
INVALID_FILTER = 94
#: Both generations: the body is not a JSON object with exactly one root key.
MALFORMED_REQUEST = 95
#: Both generations: the key exists but its web-service instance may not call this operation.
NOT_PERMITTED = 96
#: Both generations: the key is unknown or inactive (the spec's 1.0 code, reused in 2.0).
INVALID_KEY = 97
#: Both generations: no operation of that name on this path.
UNKNOWN_OPERATION = 99
#: Generation 2.0: a parameter is missing or invalid where the operation documents no code of its own.
V2_INVALID_FIELD = 1
