"""One exception hierarchy for everything that can go wrong talking to the ISP web service.

``IspError`` is the root. Two branches matter to callers:

* ``IspApiError``: the web service answered and said no. It carries the operation, the generation
  and the envelope's code, description, detail and inf; ``known`` names the documented meaning of
  the code for that operation (``ErrorName``), so callers test ``err.known is
  ErrorName.TICKET_ALREADY_CLOSED`` rather than a number whose meaning differs per operation.
* ``IspTransportError``: the web service could not be asked or its answer could not be read
  (timeout, refused connection, HTTP 5xx, a body that is not JSON, an HTML login page, an open
  circuit). For a write, a timeout or a connection lost once the request went means the outcome
  is unknown (``outcome_unknown``).

Messages never contain the integration key or any password: they are built from the operation
name, codes and the URL path only.
"""

from __future__ import annotations

from enum import StrEnum


class Generation(StrEnum):
    V1 = "1.0"
    V2 = "2.0"


class ErrorName(StrEnum):
    """Documented meanings of error codes. Codes are local to each operation; the catalog maps
    each operation's codes onto these names."""

    # shared
    INVALID_KEY = "invalid_key"  # 97, any generation-1.0 operation
    # generation 1.0
    REQUIRED_FIELD_MISSING = "required_field_missing"
    DOCUMENT_NOT_FOUND = "document_not_found"
    INVALID_CODE = "invalid_code"
    INVOICE_ISSUE_DATE_TOO_EARLY = "invoice_issue_date_too_early"
    ENROLLMENT_WITHOUT_INSTALLMENT = "enrollment_without_installment"
    MARKETING_STIMULUS_NOT_COMMERCIAL = "marketing_stimulus_not_commercial"
    # tickets
    TICKET_SEARCH_FAILED = "ticket_search_failed"
    TICKET_ALREADY_CLOSED = "ticket_already_closed"
    INVALID_OS_STATUS = "invalid_os_status"
    USER_NOT_FOUND = "user_not_found"
    INTERNAL_SERVER_ERROR = "internal_server_error"
    INVALID_TARGET = "invalid_target"
    TICKET_HAS_NO_SURVEY = "ticket_has_no_survey"
    TICKET_ALREADY_HAS_APPOINTMENT = "ticket_already_has_appointment"
    TICKET_NOT_FOUND = "ticket_not_found"
    # authentications
    AUTHENTICATION_USER_TAKEN = "authentication_user_taken"
    INVALID_FIELD = "invalid_field"
    AUTHENTICATION_NOT_FOUND = "authentication_not_found"
    # customers, contacts, groups, ips
    CONTACT_HAS_NO_CUSTOMER = "contact_has_no_customer"
    CONTACT_NOT_FOUND = "contact_not_found"
    INVALID_GROUP_STATUS = "invalid_group_status"
    GROUP_NOT_FOUND = "group_not_found"
    IP_ALREADY_EXISTS = "ip_already_exists"
    INVALID_CUSTOMER = "invalid_customer"
    RULE_NOT_FOUND = "rule_not_found"
    INVALID_TYPE = "invalid_type"
    INVALID_EQUIPMENT_STATUS = "invalid_equipment_status"
    # mobile virtual operator
    UNIDENTIFIED_CUSTOMER = "unidentified_customer"
    UNIDENTIFIED_CONTRACT_LINE = "unidentified_contract_line"
    # contracts
    UNIDENTIFIED_PACKAGE = "unidentified_package"
    CUSTOMER_NOT_FOUND = "customer_not_found"
    CONTRACT_ALREADY_SIGNED = "contract_already_signed"
    INVALID_CONTRACT_STATUS = "invalid_contract_status"
    CONTRACT_CANNOT_BE_CANCELLED = "contract_cannot_be_cancelled"
    SUSPENSION_ALREADY_SCHEDULED = "suspension_already_scheduled"
    NO_SUSPENSION_FOUND = "no_suspension_found"
    DISCOUNT_ABOVE_CONTRACT_VALUE = "discount_above_contract_value"
    CONTRACT_NOT_FOUND = "contract_not_found"
    CONTRACT_NOT_OF_CUSTOMER = "contract_not_of_customer"
    CONTRACT_STARTS_IN_FUTURE = "contract_starts_in_future"
    # temporary plans
    TEMPORARY_PLAN_EXISTS = "temporary_plan_exists"
    TEMPORARY_PLAN_NOT_FOUND = "temporary_plan_not_found"
    TEMPORARY_PLAN_CANNOT_DISABLE = "temporary_plan_cannot_disable"
    TEMPORARY_PLAN_LIST_NEEDS_FILTER = "temporary_plan_list_needs_filter"
    # stock
    NO_STOCK_BALANCE = "no_stock_balance"
    PRODUCT_CODE_EXISTS = "product_code_exists"
    # finance (third document)
    NO_OPEN_DOCUMENT = "no_open_document"
    DUE_DATE_REFUSED = "due_date_refused"
    DUE_DATE_IN_PAST = "due_date_in_past"
    NO_PIX = "no_pix"
    PAYMENT_ALREADY_INFORMED = "payment_already_informed"
    DUE_DATE_BEFORE_TODAY = "due_date_before_today"
    INVOICE_NOT_ISSUED = "invoice_not_issued"
    SERVICE_INVOICE_NOT_FOUND = "service_invoice_not_found"
    DOCUMENT_ALREADY_REVERSED = "document_already_reversed"
    DOCUMENT_UNPAID = "document_unpaid"
    CARD_EXPIRED = "card_expired"
    CUSTOMER_OR_CONTRACT_NOT_FOUND = "customer_or_contract_not_found"


class IspError(Exception):
    """Root of every failure of the ISP client."""

    def __init__(self, message: str, *, operation: str = "", generation: Generation | None = None) -> None:
        super().__init__(message)
        self.operation = operation
        self.generation = generation


class InvalidRequestError(IspError, ValueError):
    """A request broke a rule of the spec; nothing was sent. ``field`` names the offending field."""

    def __init__(self, message: str, *, operation: str = "", field: str = "") -> None:
        super().__init__(message, operation=operation)
        self.field = field


class FilterError(InvalidRequestError):
    """A ``Filtro`` used a name the query does not accept, or a value that cannot be quoted."""


class IspApiError(IspError):
    """The web service refused the operation (status 0)."""

    def __init__(
        self,
        *,
        operation: str,
        generation: Generation,
        code: int | None,
        description: str = "",
        detail: str = "",
        inf: str = "",
        known: ErrorName | None = None,
    ) -> None:
        self.code = code
        self.description = description
        self.detail = detail
        self.inf = inf
        self.known = known
        text = f"{operation} (generation {generation}) failed with code {code}"
        if known is not None:
            text += f" [{known}]"
        if description:
            text += f": {description}"
        if detail:
            text += f" ({detail})"
        if inf:
            text += f" [{inf}]"
        super().__init__(text, operation=operation, generation=generation)


class InvalidKeyError(IspApiError):
    """The integration key is invalid or inactive (generation-1.0 code 97, or the generation-2.0
    equivalent). The operator must fix ``ISPBOT_ISP_KEY``; retrying cannot help."""


class IspTransportError(IspError):
    """The web service could not be asked, or its answer could not be read."""

    outcome_unknown: bool = False


class IspTimeout(IspTransportError):
    """No answer in time. For a write the operation may or may not have happened."""


class IspUnreachable(IspTransportError):
    """The connection could not be made (refused, DNS, TLS)."""


class IspHttpError(IspTransportError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status_code: int, operation: str = "",
                 generation: Generation | None = None) -> None:
        super().__init__(message, operation=operation, generation=generation)
        self.status_code = status_code


class IspBadResponse(IspTransportError):
    """The body was not JSON, or not the web service's envelope."""


class NotTheWebServiceError(IspBadResponse):
    """The URL answered something that is not the web service (typically an HTML login page with
    HTTP 200 because the base URL or path is wrong)."""


class CircuitOpenError(IspTransportError):
    """Recent calls kept failing, so calls fail fast for a while instead of piling onto a server in
    trouble."""
