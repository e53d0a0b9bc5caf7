"""Generation-1.0 operations (first document, section 4), spelled as the spec spells them.

Each module-level name is the operation's own name (``ConsutaFornecedores`` keeps the spec's typo),
so a grep for the wire name finds its entry. Code 97 (invalid key) and code 1 meaning "no rows" on a
query are handled by the envelope for every operation; only the other documented codes are mapped
here.
"""

from __future__ import annotations

from typing import cast

from bot.isp.catalog.base import Kind, Operation, encode_in_group, one, records, v1_listing, v1_query
from bot.isp.errors import ErrorName, Generation
from bot.isp.models import v1_records, v1_requests

# ---- 4.2 queries that accept Filtro --------------------------------------------------------------
ConsultaAtendimentos = v1_query(
    "ConsultaAtendimentos", v1_records.Ticket,
    also=(
        "Atendimentos.Data_AB", "Atendimentos.Hora_AB", "Atendimentos.Usu_abertura",
        "Atendimentos.Usu_Designado", "Atendimentos.Grupo_Designado", "UsuariosGrupoSetor.Grupo",
        "Atendimentos.SituacaoOS", "AtendT.Nome", "AtendT.Descricao", "Atendimentos.Assunto",
        "Atendimentos.Solucao", "Atendimentos.Data_BX", "Atendimentos.Hora_BX", "AtendC.Nome",
        "AtendC.Descricao", "Atendimentos.Tipo", "Atendimentos.TipoCli", "Atendimentos.Cliente",
        "Atendimentos.Data_Prox", "Atendimentos.Hora_Prox", "Atendimentos.Duracao_Prox",
        "Atendimentos.SituacaoAgendamento",
    ),
    summary="Support tickets",
)
ConsultaCausas = v1_query("ConsultaCausas", v1_records.ClosingCause, summary="Ticket closing causes")
ConsultaChecklistAtendimentos = v1_query(
    "ConsultaChecklistAtendimentos", v1_records.ChecklistItem, summary="Checklists of open tickets"
)
ConsultaFluxos = v1_query("ConsultaFluxos", v1_records.Workflow, summary="Ticket workflows")
ConsultaOcorrenciasAtendimentos = v1_query(
    "ConsultaOcorrenciasAtendimentos", v1_records.TicketOccurrence,
    also=("Data", "Descricao", "Modo", "Usuario", "MapsLat", "MapsLng", "Atendimento"),
    summary="Ticket occurrences",
)
ConsultaTopicos = v1_query("ConsultaTopicos", v1_records.TicketTopic, summary="Ticket topics")
ConsultaAutenticacao = v1_query(
    "ConsultaAutenticacao", v1_records.Authentication, summary="Subscriber authentications"
)
ConsultaAutenticacaoSenha = v1_query(
    "ConsultaAutenticacaoSenha", v1_records.AuthenticationWithPassword,
    summary="Subscriber authentications with their passwords",
)
ConsultaClientes = v1_query("ConsultaClientes", v1_records.Customer, summary="Customers")
ConsultaClientesBloqueados = v1_query(
    "ConsultaClientesBloqueados", v1_records.BlockedCustomer, summary="Blocked customers"
)
ConsultaClientesReducao = v1_query(
    "ConsultaClientesReducao", v1_records.ReducedCustomer,
    summary="Customers in a bandwidth-reduction rule of the virtual collector",
)
ConsultaClienteOnline = v1_query(
    "ConsultaClienteOnline", v1_records.CustomerOnline, summary="Whether customers are online"
)
ConsultaContatos = v1_query("ConsultaContatos", v1_records.Contact, also=("Cliente",), summary="Contacts")
ConsultarDadosAdicionais = v1_query(
    "ConsultarDadosAdicionais", v1_records.AdditionalDataValue, summary="Values of additional data"
)
ConsultaClientesCobranca = v1_query(
    "ConsultaClientesCobranca", v1_records.CustomerBilling, summary="Billing data of customers"
)
ConsultaEquipamentosOnline = v1_query(
    "ConsultaEquipamentosOnline", v1_records.OnlineEquipment, summary="Online customer equipment"
)
ConsultaMercados = v1_query("ConsultaMercados", v1_records.Market, summary="Markets (prospects)")
ConsultaContratos = v1_query("ConsultaContratos", v1_records.Contract, summary="Contracts")
ConsultaContratosBloqueados = v1_query(
    "ConsultaContratosBloqueados", v1_records.BlockedContract, summary="Blocked contracts"
)
ConsultaModelosProduto = v1_query("ConsultaModelosProduto", v1_records.ProductModel, summary="Product models")
ConsultaTiposProduto = v1_query("ConsultaTiposProduto", v1_records.ProductType, summary="Product types")
ConsultaUnidadesProduto = v1_query("ConsultaUnidadesProduto", v1_records.ProductUnit, summary="Product units")
ConsultaCartoesCadastrados = v1_query(
    "ConsultaCartoesCadastrados", v1_records.StoredCard, summary="Stored payment cards"
)
ConsultaDocumentosBaixados = v1_query(
    "ConsultaDocumentosBaixados", v1_records.SettledDocument,
    also=(
        "Movimento.Sequencia", "Movimento.Tipo", "Movimento.Cobranca", "Movimento.Cliente",
        "Clientes.CNPJ_CNPF", "Fornecedores.CNPJ_CNPF", "Mercado.CNPJ_CNPF",
        "Clientes.Nome", "Fornecedores.Nome", "Mercado.Nome",
        "Movimento.Conta", "Historicos.Descricao", "HistoricosBaixa.Descricao", "Movimento.BxCPartida",
        "Movimento.Documento", "Movimento.NroBanco", "Movimento.Origem", "Movimento.BcoCobr",
        "Movimento.Convenio", "Movimento.Complemento", "Movimento.DataLancto", "Movimento.Data",
        "Movimento.DataBaixa", "Movimento.MotivoBaixa", "Movimento.FormaPagto", "Movimento.Valor",
        "Movimento.BxJuros", "Movimento.BxMulta", "Movimento.BxDesconto", "Movimento.Bxusuario",
        "Movimento.BaixaDataHora",
    ),
    summary="Settled financial documents",
)
ConsultaDocumentosAbertos = v1_query(
    "ConsultaDocumentosAbertos", v1_records.OpenDocument,
    also=("Data", "Cliente", "BcoCobr", "NroBanco", "DataLancto"),
    summary="Open financial documents",
)
FailOverEvents = v1_query("FailOverEvents", v1_records.FailoverEvent, summary="Failover events")
ConsutaFornecedores = v1_query("ConsutaFornecedores", v1_records.Supplier, summary="Suppliers")
ConsultaStatusNAS = v1_query("ConsultaStatusNAS", v1_records.NasStatus, summary="Whether each NAS is online")

# ---- 4.2 queries without filter support ----------------------------------------------------------
ConsultaGruposSLA = v1_listing("ConsultaGruposSLA", v1_records.SlaGroup, summary="SLA groups")
ConsultaComplementoContatos = v1_listing(
    "ConsultaComplementoContatos", v1_records.ContactComplement, summary="Contact complements"
)
ConsultaGruposCliente = v1_listing("ConsultaGruposCliente", v1_records.CustomerGroup, summary="Customer groups")
ConsultaConcorrencia = v1_listing("ConsultaConcorrencia", v1_records.Competitor, summary="Competitors")
ConsultaMotivosCancelamento = v1_listing(
    "ConsultaMotivosCancelamento", v1_records.CancellationReason, summary="Cancellation reasons"
)
ConsultaCiclosFaturamento = v1_listing("ConsultaCiclosFaturamento", v1_records.BillingCycle, summary="Billing cycles")
ConsultaGruposCobranca = v1_listing("ConsultaGruposCobranca", v1_records.CollectionGroup, summary="Collection groups")
ConsultaDadosAdicionais = v1_listing(
    "ConsultaDadosAdicionais", v1_records.AdditionalDataDefinition, summary="Definitions of additional data"
)
ConsultaPlanos = v1_listing("ConsultaPlanos", v1_records.Plan, summary="Plans")
ConsultaQoS = v1_listing("ConsultaQoS", v1_records.QosProfile, summary="QoS profiles")
ConsultaUsuarios = v1_listing("ConsultaUsuarios", v1_records.SystemUser, summary="System users")

# ---- 4.3.7 a query with a parameter group --------------------------------------------------------
ConsultaLinhaDigitavelBoleto = Operation(
    "ConsultaLinhaDigitavelBoleto", Generation.V1, Kind.QUERY,
    encode_in_group("DadosLinhaDigitavelEntrada"), records(v1_requests.DigitableLine),
    errors={1: ErrorName.DOCUMENT_NOT_FOUND},
    request_model=v1_requests.DigitableLineQuery, group="DadosLinhaDigitavelEntrada",
    summary="Digitable line of a bill slip",
)

# ---- 4.3 writes ----------------------------------------------------------------------------------
AtendimentoCadastro = Operation(
    "AtendimentoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosAtendimento"), one(v1_requests.TicketCreated),
    errors={223: ErrorName.MARKETING_STIMULUS_NOT_COMMERCIAL},
    request_model=v1_requests.TicketCreate, group="DadosAtendimento",
    summary="Open a ticket",
)
ClienteCadastro = Operation(
    "ClienteCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosCliente"), one(v1_requests.CustomerCreated),
    errors={1: ErrorName.REQUIRED_FIELD_MISSING},
    request_model=v1_requests.CustomerCreate, group="DadosCliente",
    summary="Register a customer",
)
MercadoCadastro = Operation(
    "MercadoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosMercado"), one(v1_requests.MarketCreated),
    errors={1: ErrorName.REQUIRED_FIELD_MISSING},
    request_model=v1_requests.MarketCreate, group="DadosMercado",
    summary="Register a market (prospect)",
)
ClienteAlteracao = Operation(
    "ClienteAlteracao", Generation.V1, Kind.WRITE,
    encode_in_group("DadosCliente"), one(v1_requests.CustomerChanged),
    errors={4: ErrorName.INVALID_CODE},
    request_model=v1_requests.CustomerChange, group="DadosCliente",
    summary="Change a customer",
)
MercadoAlteracao = Operation(
    "MercadoAlteracao", Generation.V1, Kind.WRITE,
    encode_in_group("DadosMercado"), one(v1_requests.MarketChanged),
    errors={4: ErrorName.INVALID_CODE},
    request_model=v1_requests.MarketChange, group="DadosMercado",
    summary="Change a market (prospect)",
)
NotasFiscaisCadastro = Operation(
    "NotasFiscaisCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosNota"), one(v1_requests.InvoicesCreated),
    errors={98: ErrorName.INVOICE_ISSUE_DATE_TOO_EARLY},
    request_model=v1_requests.InvoicesCreate, group="DadosNota",
    summary="Create invoices of model 21 and 22",
)
PedidoCadastro = Operation(
    "PedidoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosPedido"), one(v1_requests.OrderCreated),
    errors={135: ErrorName.ENROLLMENT_WITHOUT_INSTALLMENT},
    request_model=v1_requests.OrderCreate, group="DadosPedido",
    summary="Create a standalone order",
)

# Entries differ in request and result types; the registry only needs them as operations.
V1_OPERATIONS: tuple[Operation[object, object], ...] = cast(
    "tuple[Operation[object, object], ...]",
    (
        # filtered queries
        ConsultaAtendimentos, ConsultaCausas, ConsultaChecklistAtendimentos, ConsultaFluxos,
        ConsultaOcorrenciasAtendimentos, ConsultaTopicos, ConsultaAutenticacao, ConsultaAutenticacaoSenha,
        ConsultaClientes, ConsultaClientesBloqueados, ConsultaClientesReducao, ConsultaClienteOnline,
        ConsultaContatos, ConsultarDadosAdicionais, ConsultaClientesCobranca, ConsultaEquipamentosOnline,
        ConsultaMercados, ConsultaContratos, ConsultaContratosBloqueados, ConsultaModelosProduto,
        ConsultaTiposProduto, ConsultaUnidadesProduto, ConsultaCartoesCadastrados,
        ConsultaDocumentosBaixados, ConsultaDocumentosAbertos, FailOverEvents, ConsutaFornecedores,
        ConsultaStatusNAS,
        # unfiltered queries
        ConsultaGruposSLA, ConsultaComplementoContatos, ConsultaGruposCliente, ConsultaConcorrencia,
        ConsultaMotivosCancelamento, ConsultaCiclosFaturamento, ConsultaGruposCobranca,
        ConsultaDadosAdicionais, ConsultaPlanos, ConsultaQoS, ConsultaUsuarios,
        # parameter-group query and writes
        ConsultaLinhaDigitavelBoleto, AtendimentoCadastro, ClienteCadastro, MercadoCadastro,
        ClienteAlteracao, MercadoAlteracao, NotasFiscaisCadastro, PedidoCadastro,
    ),
)
