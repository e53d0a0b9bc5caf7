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
from bot.isp.models import v1_records as r
from bot.isp.models import v1_requests as q

# ---- 4.2 queries that accept Filtro --------------------------------------------------------------
ConsultaAtendimentos = v1_query(
    "ConsultaAtendimentos", r.Ticket,
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
ConsultaCausas = v1_query("ConsultaCausas", r.ClosingCause, summary="Ticket closing causes")
ConsultaChecklistAtendimentos = v1_query(
    "ConsultaChecklistAtendimentos", r.ChecklistItem, summary="Checklists of open tickets"
)
ConsultaFluxos = v1_query("ConsultaFluxos", r.Workflow, summary="Ticket workflows")
ConsultaOcorrenciasAtendimentos = v1_query(
    "ConsultaOcorrenciasAtendimentos", r.TicketOccurrence,
    also=("Data", "Descricao", "Modo", "Usuario", "MapsLat", "MapsLng", "Atendimento"),
    summary="Ticket occurrences",
)
ConsultaTopicos = v1_query("ConsultaTopicos", r.TicketTopic, summary="Ticket topics")
ConsultaAutenticacao = v1_query(
    "ConsultaAutenticacao", r.Authentication, summary="Subscriber authentications"
)
ConsultaAutenticacaoSenha = v1_query(
    "ConsultaAutenticacaoSenha", r.AuthenticationWithPassword,
    summary="Subscriber authentications with their passwords",
)
ConsultaClientes = v1_query("ConsultaClientes", r.Customer, summary="Customers")
ConsultaClientesBloqueados = v1_query(
    "ConsultaClientesBloqueados", r.BlockedCustomer, summary="Blocked customers"
)
ConsultaClientesReducao = v1_query(
    "ConsultaClientesReducao", r.ReducedCustomer,
    summary="Customers in a bandwidth-reduction rule of the virtual collector",
)
ConsultaClienteOnline = v1_query(
    "ConsultaClienteOnline", r.CustomerOnline, summary="Whether customers are online"
)
ConsultaContatos = v1_query("ConsultaContatos", r.Contact, also=("Cliente",), summary="Contacts")
ConsultarDadosAdicionais = v1_query(
    "ConsultarDadosAdicionais", r.AdditionalDataValue, summary="Values of additional data"
)
ConsultaClientesCobranca = v1_query(
    "ConsultaClientesCobranca", r.CustomerBilling, summary="Billing data of customers"
)
ConsultaEquipamentosOnline = v1_query(
    "ConsultaEquipamentosOnline", r.OnlineEquipment, summary="Online customer equipment"
)
ConsultaMercados = v1_query("ConsultaMercados", r.Market, summary="Markets (prospects)")
ConsultaContratos = v1_query("ConsultaContratos", r.Contract, summary="Contracts")
ConsultaContratosBloqueados = v1_query(
    "ConsultaContratosBloqueados", r.BlockedContract, summary="Blocked contracts"
)
ConsultaModelosProduto = v1_query("ConsultaModelosProduto", r.ProductModel, summary="Product models")
ConsultaTiposProduto = v1_query("ConsultaTiposProduto", r.ProductType, summary="Product types")
ConsultaUnidadesProduto = v1_query("ConsultaUnidadesProduto", r.ProductUnit, summary="Product units")
ConsultaCartoesCadastrados = v1_query(
    "ConsultaCartoesCadastrados", r.StoredCard, summary="Stored payment cards"
)
ConsultaDocumentosBaixados = v1_query(
    "ConsultaDocumentosBaixados", r.SettledDocument,
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
    "ConsultaDocumentosAbertos", r.OpenDocument,
    also=("Data", "Cliente", "BcoCobr", "NroBanco", "DataLancto"),
    summary="Open financial documents",
)
FailOverEvents = v1_query("FailOverEvents", r.FailoverEvent, summary="Failover events")
ConsutaFornecedores = v1_query("ConsutaFornecedores", r.Supplier, summary="Suppliers")
ConsultaStatusNAS = v1_query("ConsultaStatusNAS", r.NasStatus, summary="Whether each NAS is online")

# ---- 4.2 queries without filter support ----------------------------------------------------------
ConsultaGruposSLA = v1_listing("ConsultaGruposSLA", r.SlaGroup, summary="SLA groups")
ConsultaComplementoContatos = v1_listing(
    "ConsultaComplementoContatos", r.ContactComplement, summary="Contact complements"
)
ConsultaGruposCliente = v1_listing("ConsultaGruposCliente", r.CustomerGroup, summary="Customer groups")
ConsultaConcorrencia = v1_listing("ConsultaConcorrencia", r.Competitor, summary="Competitors")
ConsultaMotivosCancelamento = v1_listing(
    "ConsultaMotivosCancelamento", r.CancellationReason, summary="Cancellation reasons"
)
ConsultaCiclosFaturamento = v1_listing("ConsultaCiclosFaturamento", r.BillingCycle, summary="Billing cycles")
ConsultaGruposCobranca = v1_listing("ConsultaGruposCobranca", r.CollectionGroup, summary="Collection groups")
ConsultaDadosAdicionais = v1_listing(
    "ConsultaDadosAdicionais", r.AdditionalDataDefinition, summary="Definitions of additional data"
)
ConsultaPlanos = v1_listing("ConsultaPlanos", r.Plan, summary="Plans")
ConsultaQoS = v1_listing("ConsultaQoS", r.QosProfile, summary="QoS profiles")
ConsultaUsuarios = v1_listing("ConsultaUsuarios", r.SystemUser, summary="System users")

# ---- 4.3.7 a query with a parameter group --------------------------------------------------------
ConsultaLinhaDigitavelBoleto = Operation(
    "ConsultaLinhaDigitavelBoleto", Generation.V1, Kind.QUERY,
    encode_in_group("DadosLinhaDigitavelEntrada"), records(q.DigitableLine),
    errors={1: ErrorName.DOCUMENT_NOT_FOUND},
    request_model=q.DigitableLineQuery, group="DadosLinhaDigitavelEntrada",
    summary="Digitable line of a bill slip",
)

# ---- 4.3 writes ----------------------------------------------------------------------------------
AtendimentoCadastro = Operation(
    "AtendimentoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosAtendimento"), one(q.TicketCreated),
    errors={223: ErrorName.MARKETING_STIMULUS_NOT_COMMERCIAL},
    request_model=q.TicketCreate, group="DadosAtendimento",
    summary="Open a ticket",
)
ClienteCadastro = Operation(
    "ClienteCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosCliente"), one(q.CustomerCreated),
    errors={1: ErrorName.REQUIRED_FIELD_MISSING},
    request_model=q.CustomerCreate, group="DadosCliente",
    summary="Register a customer",
)
MercadoCadastro = Operation(
    "MercadoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosMercado"), one(q.MarketCreated),
    errors={1: ErrorName.REQUIRED_FIELD_MISSING},
    request_model=q.MarketCreate, group="DadosMercado",
    summary="Register a market (prospect)",
)
ClienteAlteracao = Operation(
    "ClienteAlteracao", Generation.V1, Kind.WRITE,
    encode_in_group("DadosCliente"), one(q.CustomerChanged),
    errors={4: ErrorName.INVALID_CODE},
    request_model=q.CustomerChange, group="DadosCliente",
    summary="Change a customer",
)
MercadoAlteracao = Operation(
    "MercadoAlteracao", Generation.V1, Kind.WRITE,
    encode_in_group("DadosMercado"), one(q.MarketChanged),
    errors={4: ErrorName.INVALID_CODE},
    request_model=q.MarketChange, group="DadosMercado",
    summary="Change a market (prospect)",
)
NotasFiscaisCadastro = Operation(
    "NotasFiscaisCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosNota"), one(q.InvoicesCreated),
    errors={98: ErrorName.INVOICE_ISSUE_DATE_TOO_EARLY},
    request_model=q.InvoicesCreate, group="DadosNota",
    summary="Create invoices of model 21 and 22",
)
PedidoCadastro = Operation(
    "PedidoCadastro", Generation.V1, Kind.WRITE,
    encode_in_group("DadosPedido"), one(q.OrderCreated),
    errors={135: ErrorName.ENROLLMENT_WITHOUT_INSTALLMENT},
    request_model=q.OrderCreate, group="DadosPedido",
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
