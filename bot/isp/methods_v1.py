"""One typed method per generation-1.0 operation, named exactly as the spec names it (so a grep for
the wire name finds the method)."""

from __future__ import annotations

from bot.isp.caller import Caller
from bot.isp.catalog import v1
from bot.isp.filters import Filter
from bot.isp.models import v1_records, v1_requests


class V1Methods(Caller):
    async def ConsultaAtendimentos(self, where: Filter | None = None) -> list[v1_records.Ticket]:
        """Support tickets."""
        return await self.call(v1.ConsultaAtendimentos, where)

    async def ConsultaCausas(self, where: Filter | None = None) -> list[v1_records.ClosingCause]:
        """Ticket closing causes."""
        return await self.call(v1.ConsultaCausas, where)

    async def ConsultaChecklistAtendimentos(self, where: Filter | None = None) -> list[v1_records.ChecklistItem]:
        """Checklists of open tickets."""
        return await self.call(v1.ConsultaChecklistAtendimentos, where)

    async def ConsultaFluxos(self, where: Filter | None = None) -> list[v1_records.Workflow]:
        """Ticket workflows."""
        return await self.call(v1.ConsultaFluxos, where)

    async def ConsultaOcorrenciasAtendimentos(self, where: Filter | None = None) -> list[v1_records.TicketOccurrence]:
        """Ticket occurrences."""
        return await self.call(v1.ConsultaOcorrenciasAtendimentos, where)

    async def ConsultaTopicos(self, where: Filter | None = None) -> list[v1_records.TicketTopic]:
        """Ticket topics."""
        return await self.call(v1.ConsultaTopicos, where)

    async def ConsultaAutenticacao(self, where: Filter | None = None) -> list[v1_records.Authentication]:
        """Subscriber authentications."""
        return await self.call(v1.ConsultaAutenticacao, where)

    async def ConsultaAutenticacaoSenha(
        self, where: Filter | None = None
    ) -> list[v1_records.AuthenticationWithPassword]:
        """Subscriber authentications with their passwords."""
        return await self.call(v1.ConsultaAutenticacaoSenha, where)

    async def ConsultaClientes(self, where: Filter | None = None) -> list[v1_records.Customer]:
        """Customers."""
        return await self.call(v1.ConsultaClientes, where)

    async def ConsultaClientesBloqueados(self, where: Filter | None = None) -> list[v1_records.BlockedCustomer]:
        """Blocked customers."""
        return await self.call(v1.ConsultaClientesBloqueados, where)

    async def ConsultaClientesReducao(self, where: Filter | None = None) -> list[v1_records.ReducedCustomer]:
        """Customers in a bandwidth-reduction rule of the virtual collector."""
        return await self.call(v1.ConsultaClientesReducao, where)

    async def ConsultaClienteOnline(self, where: Filter | None = None) -> list[v1_records.CustomerOnline]:
        """Whether customers are online."""
        return await self.call(v1.ConsultaClienteOnline, where)

    async def ConsultaContatos(self, where: Filter | None = None) -> list[v1_records.Contact]:
        """Contacts."""
        return await self.call(v1.ConsultaContatos, where)

    async def ConsultarDadosAdicionais(self, where: Filter | None = None) -> list[v1_records.AdditionalDataValue]:
        """Values of additional data."""
        return await self.call(v1.ConsultarDadosAdicionais, where)

    async def ConsultaClientesCobranca(self, where: Filter | None = None) -> list[v1_records.CustomerBilling]:
        """Billing data of customers."""
        return await self.call(v1.ConsultaClientesCobranca, where)

    async def ConsultaEquipamentosOnline(self, where: Filter | None = None) -> list[v1_records.OnlineEquipment]:
        """Online customer equipment."""
        return await self.call(v1.ConsultaEquipamentosOnline, where)

    async def ConsultaMercados(self, where: Filter | None = None) -> list[v1_records.Market]:
        """Markets (prospects)."""
        return await self.call(v1.ConsultaMercados, where)

    async def ConsultaContratos(self, where: Filter | None = None) -> list[v1_records.Contract]:
        """Contracts."""
        return await self.call(v1.ConsultaContratos, where)

    async def ConsultaContratosBloqueados(self, where: Filter | None = None) -> list[v1_records.BlockedContract]:
        """Blocked contracts."""
        return await self.call(v1.ConsultaContratosBloqueados, where)

    async def ConsultaModelosProduto(self, where: Filter | None = None) -> list[v1_records.ProductModel]:
        """Product models."""
        return await self.call(v1.ConsultaModelosProduto, where)

    async def ConsultaTiposProduto(self, where: Filter | None = None) -> list[v1_records.ProductType]:
        """Product types."""
        return await self.call(v1.ConsultaTiposProduto, where)

    async def ConsultaUnidadesProduto(self, where: Filter | None = None) -> list[v1_records.ProductUnit]:
        """Product units."""
        return await self.call(v1.ConsultaUnidadesProduto, where)

    async def ConsultaCartoesCadastrados(self, where: Filter | None = None) -> list[v1_records.StoredCard]:
        """Stored payment cards."""
        return await self.call(v1.ConsultaCartoesCadastrados, where)

    async def ConsultaDocumentosBaixados(self, where: Filter | None = None) -> list[v1_records.SettledDocument]:
        """Settled financial documents."""
        return await self.call(v1.ConsultaDocumentosBaixados, where)

    async def ConsultaDocumentosAbertos(self, where: Filter | None = None) -> list[v1_records.OpenDocument]:
        """Open financial documents."""
        return await self.call(v1.ConsultaDocumentosAbertos, where)

    async def FailOverEvents(self, where: Filter | None = None) -> list[v1_records.FailoverEvent]:
        """Failover events."""
        return await self.call(v1.FailOverEvents, where)

    async def ConsutaFornecedores(self, where: Filter | None = None) -> list[v1_records.Supplier]:
        """Suppliers."""
        return await self.call(v1.ConsutaFornecedores, where)

    async def ConsultaStatusNAS(self, where: Filter | None = None) -> list[v1_records.NasStatus]:
        """Whether each NAS is online."""
        return await self.call(v1.ConsultaStatusNAS, where)

    async def ConsultaGruposSLA(self) -> list[v1_records.SlaGroup]:
        """SLA groups."""
        return await self.call(v1.ConsultaGruposSLA, None)

    async def ConsultaComplementoContatos(self) -> list[v1_records.ContactComplement]:
        """Contact complements."""
        return await self.call(v1.ConsultaComplementoContatos, None)

    async def ConsultaGruposCliente(self) -> list[v1_records.CustomerGroup]:
        """Customer groups."""
        return await self.call(v1.ConsultaGruposCliente, None)

    async def ConsultaConcorrencia(self) -> list[v1_records.Competitor]:
        """Competitors."""
        return await self.call(v1.ConsultaConcorrencia, None)

    async def ConsultaMotivosCancelamento(self) -> list[v1_records.CancellationReason]:
        """Cancellation reasons."""
        return await self.call(v1.ConsultaMotivosCancelamento, None)

    async def ConsultaCiclosFaturamento(self) -> list[v1_records.BillingCycle]:
        """Billing cycles."""
        return await self.call(v1.ConsultaCiclosFaturamento, None)

    async def ConsultaGruposCobranca(self) -> list[v1_records.CollectionGroup]:
        """Collection groups."""
        return await self.call(v1.ConsultaGruposCobranca, None)

    async def ConsultaDadosAdicionais(self) -> list[v1_records.AdditionalDataDefinition]:
        """Definitions of additional data."""
        return await self.call(v1.ConsultaDadosAdicionais, None)

    async def ConsultaPlanos(self) -> list[v1_records.Plan]:
        """Plans."""
        return await self.call(v1.ConsultaPlanos, None)

    async def ConsultaQoS(self) -> list[v1_records.QosProfile]:
        """QoS profiles."""
        return await self.call(v1.ConsultaQoS, None)

    async def ConsultaUsuarios(self) -> list[v1_records.SystemUser]:
        """System users."""
        return await self.call(v1.ConsultaUsuarios, None)

    async def ConsultaLinhaDigitavelBoleto(
        self, request: v1_requests.DigitableLineQuery
    ) -> list[v1_requests.DigitableLine]:
        """Digitable line of a bill slip."""
        return await self.call(v1.ConsultaLinhaDigitavelBoleto, request)

    async def AtendimentoCadastro(self, request: v1_requests.TicketCreate) -> v1_requests.TicketCreated:
        """Open a ticket."""
        return await self.call(v1.AtendimentoCadastro, request)

    async def ClienteCadastro(self, request: v1_requests.CustomerCreate) -> v1_requests.CustomerCreated:
        """Register a customer."""
        return await self.call(v1.ClienteCadastro, request)

    async def MercadoCadastro(self, request: v1_requests.MarketCreate) -> v1_requests.MarketCreated:
        """Register a market (prospect)."""
        return await self.call(v1.MercadoCadastro, request)

    async def ClienteAlteracao(self, request: v1_requests.CustomerChange) -> v1_requests.CustomerChanged:
        """Change a customer."""
        return await self.call(v1.ClienteAlteracao, request)

    async def MercadoAlteracao(self, request: v1_requests.MarketChange) -> v1_requests.MarketChanged:
        """Change a market (prospect)."""
        return await self.call(v1.MercadoAlteracao, request)

    async def NotasFiscaisCadastro(self, request: v1_requests.InvoicesCreate) -> v1_requests.InvoicesCreated:
        """Create invoices of model 21 and 22."""
        return await self.call(v1.NotasFiscaisCadastro, request)

    async def PedidoCadastro(self, request: v1_requests.OrderCreate) -> v1_requests.OrderCreated:
        """Create a standalone order."""
        return await self.call(v1.PedidoCadastro, request)
