"""The generation-1.0 queries: each is a view over the store with the spec's record shape.

A ``View`` lists the fields the spec returns, in the spec's order, and the alternative filter names
of section 2 (``Atendimentos.Data_AB``, ``Cliente`` for ``ConsultaContatos.id``, ...), each computed
from the record. ``Filtro`` may use both; the record answered holds only the fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.sandbox.filters import Narrowing, affinity
from bot.sandbox.store import Record, Store

Rows = Callable[[Store, datetime], Iterable[Record]]
Alias = Callable[[Record], Any]


@dataclass(frozen=True)
class View:
    name: str
    fields: tuple[str, ...]
    rows: Rows
    aliases: Mapping[str, Alias] = field(default_factory=dict)
    filterable: bool = True

    @property
    def names(self) -> list[str]:
        """Every name a Filtro may use, fields first."""
        return [*self.fields, *(a for a in self.aliases if a not in self.fields)]

    def table(self, store: Store, now: datetime) -> list[Record]:
        return [self._item(row) for row in self.rows(store, now)]

    def narrowed(self, store: Store, now: datetime, narrow: Narrowing) -> tuple[list[Record], dict[str, str]]:
        """The rows that may match ``narrow`` (a field of the view, not an alias), and the affinity the
        whole table gives its column: a query for one record among many builds only that record."""
        rows = list(self.rows(store, now))
        items = [self._item(row) for row in rows if narrow.may_match(row)]
        return items, {narrow.column: affinity(rows, narrow.column)}

    def _item(self, row: Record) -> Record:
        item = {f: row.get(f) for f in self.fields}
        item.update({alias: fn(row) for alias, fn in self.aliases.items()})
        return item


def same(name: str) -> Alias:
    return lambda row: row.get(name)


def date_of(name: str) -> Alias:
    return lambda row: row[name][:10] if row.get(name) else None


def time_of(name: str) -> Alias:
    return lambda row: row[name][11:19] if row.get(name) else None


def words(*names: str) -> tuple[str, ...]:
    return tuple(n for chunk in names for n in chunk.split())


def plain(table: str) -> Rows:
    return lambda store, now: store.rows(table)


_COORDINATE_HINTS = ("Lat", "Lng", "Latitude", "Longitude")


def scalar(name: str, value: Any) -> str:
    """Generation 1.0 answers every scalar as a string: money with 2 decimals, coordinates with 13."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "S" if value else "N"
    if isinstance(value, float):
        return f"{value:.13f}" if any(h in name for h in _COORDINATE_HINTS) else f"{value:.2f}"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def render(view: View, row: Record) -> dict[str, str]:
    return {f: scalar(f, row.get(f)) for f in view.fields}


# ---- joins -------------------------------------------------------------------------------------
def _by(store: Store, table: str, key: str) -> dict[Any, Record]:
    return {row[key]: row for row in store.rows(table)}


def _tickets(store: Store, now: datetime) -> Iterable[Record]:
    topics = _by(store, "topics", "Codigo")
    causes = _by(store, "causes", "Codigo")
    for ticket in store.rows("tickets"):
        topic = topics.get(ticket.get("topico"), {})
        cause = causes.get(ticket.get("causa"), {})
        yield {**ticket, "_topic_desc": topic.get("Descricao", ""), "_cause_desc": cause.get("Descricao", "")}


def _checklist(store: Store, now: datetime) -> Iterable[Record]:
    lists = _by(store, "checklists", "Id")
    open_tickets = {t["Numero"] for t in store.rows("tickets") if not t.get("Encerramento_DataHora")}
    for mark in store.rows("ticket_checklists"):
        if mark["Atendimento_Numero"] in open_tickets:
            item = lists.get(mark["Checklist_Id"], {})
            yield {
                **mark,
                "Checklist_Descricao": item.get("Descricao", ""),
                "Checklist_Obrigatorio": item.get("Obrigatorio", "N"),
            }


def _contracts(store: Store, now: datetime) -> Iterable[Record]:
    customers = _by(store, "customers", "Codigo")
    groups = _by(store, "customer_groups", "Codigo")
    for contract in store.rows("contracts"):
        c = customers.get(contract["Cliente_Codigo"], {})
        yield {
            **contract,
            "Cliente_Nome": c.get("Nome", ""),
            "Situacao_Descricao": CONTRACT_STATES.get(contract["Situacao_Codigo"], ""),
            "Cliente_Tipo": c.get("Tipo"),
            "Cliente_CPF_CNPJ": c.get("CNPJ_CNPF"),
            "Cliente_Tel_Comercial": c.get("TelComercial"),
            "Cliente_Tel_Residencial": c.get("TelResidencial"),
            "Cliente_Tel_Celular": c.get("TelCelular"),
            "Cliente_RG_IE": c.get("RG_IE"),
            "Cliente_Sigla": c.get("Sigla"),
            "Cliente_Bloqueavel": c.get("Bloqueavel"),
            "Cliente_Email": c.get("Email"),
            "Cliente_Grupo": groups.get(c.get("Grupo"), {}).get("Nome", ""),
        }


def _blocked_contracts(store: Store, now: datetime) -> Iterable[Record]:
    for row in _contracts(store, now):
        if row["Situacao_Codigo"] == "B":
            yield {
                "Contrato_Numero": row["Numero"],
                "Contrato_Descricao": row["Plano_Descricao"],
                "Contrato_Bloqueio": row.get("DataUltimaOperacao"),
                "Contrato_Bloqueio_Usuario": row.get("Ultima_Operacao_Usuario", ""),
                "Cliente_Codigo": row["Cliente_Codigo"],
                "Cliente_Nome": row["Cliente_Nome"],
            }


def _blocked_customers(store: Store, now: datetime) -> Iterable[Record]:
    since: dict[int, str] = {}
    for contract in store.rows("contracts"):
        if contract["Situacao_Codigo"] == "B" and contract.get("DataUltimaOperacao"):
            code = contract["Cliente_Codigo"]
            since[code] = min(since.get(code, contract["DataUltimaOperacao"]), contract["DataUltimaOperacao"])
    for customer in store.rows("customers"):
        if customer["Codigo"] in since:
            start = datetime.fromisoformat(since[customer["Codigo"]])
            yield {
                "Codigo": customer["Codigo"],
                "Nome": customer["Nome"],
                "DataBloqueio": start.strftime("%Y-%m-%d 00:00:00"),
                "DiasBloqueio": (now.replace(tzinfo=None) - start).days,
            }


def _reduced(store: Store, now: datetime) -> Iterable[Record]:
    contracts = _by(store, "contracts", "Numero")
    customers = _by(store, "customers", "Codigo")
    for rule in store.rows("reduction_rules"):
        for number in rule.get("contratos", []):
            contract = contracts.get(number)
            if contract is not None:
                yield {
                    "Regra": rule["Regra"],
                    "Cliente_Codigo": contract["Cliente_Codigo"],
                    "Cliente_Nome": customers.get(contract["Cliente_Codigo"], {}).get("Nome", ""),
                    "Contrato_Numero": number,
                    "Contrato_Descricao": contract["Plano_Descricao"],
                }


def _online(store: Store, now: datetime) -> Iterable[Record]:
    sessions: dict[int, list[str]] = {}
    for session in store.rows("sessions"):
        sessions.setdefault(session["customer_id"], []).append(session["nas_ip_address"])
    for customer in store.rows("customers"):
        nas = sessions.get(customer["Codigo"], [])
        yield {
            "Codigo": customer["Codigo"],
            "Nome": customer["Nome"],
            "Online": "S" if nas else "N",
            "NasConectados": ",".join(dict.fromkeys(nas)),
        }


def _online_equipment(store: Store, now: datetime) -> Iterable[Record]:
    contracts = _by(store, "contracts", "Numero")
    sessions = {s["contract_id"]: s for s in store.rows("sessions")}
    nas = _by(store, "nas", "IPInterno")
    for eq in store.rows("equipment"):
        session = sessions.get(eq["contract_id"])
        if eq["status"] != "active" or session is None:
            continue
        box = nas.get(session["nas_ip_address"], {})
        slot, _, port = eq["controller_port"].rpartition("/")
        yield {
            "Cliente_Codigo": eq["customer_id"],
            "Cliente_Nome": eq["customer_name"],
            "Contrato_Numero": eq["contract_id"],
            "Contrato_Descricao": contracts.get(eq["contract_id"], {}).get("Plano_Descricao", ""),
            "DataHora_UltimaColeta": eq.get("last_collect"),
            "NAS_IP": session["nas_ip_address"],
            "NAS_Sigla": box.get("Sigla", ""),
            "NAS_Descricao": box.get("Descricao", ""),
            "NAS_Slot": slot,
            "NAS_Porta": port,
            "Equipamento_Id": eq["id"],
            "Equipamento_Descricao": eq["product_description"],
            "Equipamento_Serial": eq["serial"],
            "Equipamento_Sinal": eq.get("signal"),
            "Equipamento_Txccq": eq.get("txccq"),
            "Equipamento_MaxCpe": eq.get("maxcpe"),
            "Equipamento_Temperatura": eq.get("temperature"),
            "Equipamento_TempoConectadoMinutos": eq.get("minutes"),
        }


def _documents(settled: bool) -> Rows:
    def rows(store: Store, now: datetime) -> Iterable[Record]:
        customers = _by(store, "customers", "Codigo")
        for doc in store.rows("documents"):
            if bool(doc.get("DataBaixa")) != settled or doc.get("estornado"):
                continue
            person = customers.get(doc["CodigoPessoa"], {})
            paid = doc["ValorOriginal"] + doc["ValorJuros"] + doc["ValorMulta"] - doc["ValorDesconto"]
            yield {
                **doc,
                "ValorBaixado": round(paid, 2),
                "Vencimento": doc["DataVencimento"],
                "CliFor": doc["CodigoPessoa"],
                "Nome": doc["NomePessoa"],
                "CPF_CNPJ": doc["DocumentoPessoa"],
                "Valor": doc["ValorOriginal"],
                "Telefone1": person.get("TelComercial", ""),
                "Telefone2": person.get("TelResidencial", ""),
                "Telefone3": person.get("TelCelular", ""),
                "ContratosVinculados": ",".join(str(c) for c in doc.get("contratos", [])),
            }

    return rows


def _nas_status(store: Store, now: datetime) -> Iterable[Record]:
    for box in store.rows("nas"):
        yield {"IPInterno": box["IPInterno"], "Online": "S" if box.get("online") else "N"}


def _markets(store: Store, now: datetime) -> Iterable[Record]:
    return store.rows("markets")


def _cycles(store: Store, now: datetime) -> Iterable[Record]:
    return store.rows("billing_cycles")


def _plans(store: Store, now: datetime) -> Iterable[Record]:
    return store.rows("plans")


def _auth(store: Store, now: datetime) -> Iterable[Record]:
    return store.rows("authentications")


def _groups(store: Store, now: datetime) -> Iterable[Record]:
    for group in store.rows("customer_groups"):
        yield {"Codigo": group["Codigo"], "Nome": group["Nome"]}


CONTRACT_STATES = {
    "E": "Aguardando instalação",
    "I": "Em instalação",
    "A": "Ativo",
    "B": "Bloqueado",
    "S": "Suspenso",
    "C": "Cancelado",
    "T": "Transferido",
}

_ADDRESS = (
    "Logradouro",
    "Numero",
    "Complemento",
    "Bairro",
    "Cidade",
    "UF",
    "CEP",
    "Pais",
    "LocalidadeId",
    "BairroId",
    "LogradouroId",
    "MapsPlaceId",
    "Latitude",
    "Longitude",
)
CUSTOMER_FIELDS = words(
    "Codigo Tipo CNPJ_CNPF Nome Endereco Numero Complemento Bairro Cidade Distrito UF CEP TelComercial",
    "TelResidencial TelCelular BcoCobr RG_IE Nascimento CodCobr Cobranca TipoImpressao DiaCobr DiasProtesto",
    "Sigla Cobr_Endereco Cobr_Complemento Cobr_Bairro Cobr_Cidade",
    "Cobr_UF Cobr_CEP Bloqueavel Inclusao usuario",
    "Observacoes MapsMarkLat MapsMarkLng Grupo Situacao Email AvisoPagamento",
)
CONTRACT_FIELDS = (
    words(
        "Cliente_Codigo Cliente_Nome Numero Plano_Codigo Plano_Descricao Pacote_Codigo Pacote_Descricao",
        "Pacote_PacoteID Modelos_Contrato Situacao_Codigo",
        "Situacao_Descricao Assinatura Inicio DataUltimaOperacao",
        "Data_Validade Aceite_Eletronico_Data",
        "CicloFaturamento_DiaBase CicloFaturamento_Vencimento ValorBruto",
        "DescontoFixo ValorLiquido DescontoPromocional_Valor DescontoPromocional_Prazo Vigencia Adesao_Valor",
        "Plano_Valor Plano_Tipo Agrupamento Assinado Vendedor",
        "Vigencia_Situacao Qtde_Dias_Vencido SLA QoS Tecnologia",
    )
    + tuple(prefix + part for prefix in ("EnderecoCobranca_", "EnderecoInstalacao_") for part in _ADDRESS)
    + words(
        "EnderecoInstalacao_UsadoParaCobranca Cliente_Tipo Cliente_CPF_CNPJ Cliente_Tel_Comercial",
        "Cliente_Tel_Residencial Cliente_Tel_Celular Cliente_RG_IE",
        "Cliente_Sigla Cliente_Bloqueavel Cliente_Email",
        "Cliente_Grupo Aceite_Eletronico Aceite_Eletronico_IP Aceite_Eletronico_Origem Cancelamento_Motivo",
        "Cancelamento_Concorrencia Ultima_Operacao_Usuario",
        "Cancelamento_Agendado_Data Cancelamento_Agendado_Registro",
        "Cancelamento_Agendado_Usuario",
    )
)
TICKET_FIELDS = words(
    "Numero Protocolo Abertura_DataHora",
    "Abertura_Usuario Designacao_Tipo Designacao_Usuario Designacao_Grupo_Id",
    "Designacao_Grupo_Nome Situacao_OS Topico Assunto Solucao Encerramento_DataHora Causa Tipo TipoCliente",
    "CodigoCliente Data_Agendamento Hora_Agendamento Duracao_Agendamento Situacao_Agendamento",
)
SETTLED_FIELDS = words(
    "Sequencia Tipo Cobranca CodigoPessoa DocumentoPessoa NomePessoa Conta Historico HistoricoBaixa",
    "ContaContrapartida Documento NossoNumero Origem",
    "Banco Convenio Complemento DataLancamento DataVencimento",
    "DataBaixa Motivo FormaPagto ValorOriginal ValorJuros ValorMulta ValorDesconto ValorBaixado UsuarioBaixa",
    "DataHoraExecucaoBaixa",
)
AUTH_FIELDS = words("Id Cliente Contrato NAS Porta Usuario MAC Observacao")
_SETTLED_ALIASES = {
    "Movimento.Sequencia": "Sequencia",
    "Movimento.Tipo": "Tipo",
    "Movimento.Cobranca": "Cobranca",
    "Movimento.Cliente": "CodigoPessoa",
    "Clientes.CNPJ_CNPF": "DocumentoPessoa",
    "Fornecedores.CNPJ_CNPF": "DocumentoPessoa",
    "Mercado.CNPJ_CNPF": "DocumentoPessoa",
    "Clientes.Nome": "NomePessoa",
    "Fornecedores.Nome": "NomePessoa",
    "Mercado.Nome": "NomePessoa",
    "Movimento.Conta": "Conta",
    "Historicos.Descricao": "Historico",
    "HistoricosBaixa.Descricao": "HistoricoBaixa",
    "Movimento.BxCPartida": "ContaContrapartida",
    "Movimento.Documento": "Documento",
    "Movimento.NroBanco": "NossoNumero",
    "Movimento.Origem": "Origem",
    "Movimento.BcoCobr": "Banco",
    "Movimento.Convenio": "Convenio",
    "Movimento.Complemento": "Complemento",
    "Movimento.DataLancto": "DataLancamento",
    "Movimento.Data": "DataVencimento",
    "Movimento.DataBaixa": "DataBaixa",
    "Movimento.MotivoBaixa": "Motivo",
    "Movimento.FormaPagto": "FormaPagto",
    "Movimento.Valor": "ValorOriginal",
    "Movimento.BxJuros": "ValorJuros",
    "Movimento.BxMulta": "ValorMulta",
    "Movimento.BxDesconto": "ValorDesconto",
    "Movimento.Bxusuario": "UsuarioBaixa",
    "Movimento.BaixaDataHora": "DataHoraExecucaoBaixa",
}

VIEWS: dict[str, View] = {
    view.name: view
    for view in (
        View(
            "ConsultaAtendimentos",
            TICKET_FIELDS,
            _tickets,
            {
                "Atendimentos.Data_AB": date_of("Abertura_DataHora"),
                "Atendimentos.Hora_AB": time_of("Abertura_DataHora"),
                "Atendimentos.Usu_abertura": same("Abertura_Usuario"),
                "Atendimentos.Usu_Designado": same("Designacao_Usuario"),
                "Atendimentos.Grupo_Designado": same("Designacao_Grupo_Id"),
                "UsuariosGrupoSetor.Grupo": same("Designacao_Grupo_Nome"),
                "Atendimentos.SituacaoOS": same("Situacao_OS"),
                "AtendT.Nome": same("Topico"),
                "AtendT.Descricao": same("_topic_desc"),
                "Atendimentos.Assunto": same("Assunto"),
                "Atendimentos.Solucao": same("Solucao"),
                "Atendimentos.Data_BX": date_of("Encerramento_DataHora"),
                "Atendimentos.Hora_BX": time_of("Encerramento_DataHora"),
                "AtendC.Nome": same("Causa"),
                "AtendC.Descricao": same("_cause_desc"),
                "Atendimentos.Tipo": same("Tipo"),
                "Atendimentos.TipoCli": same("TipoCliente"),
                "Atendimentos.Cliente": same("CodigoCliente"),
                "Atendimentos.Data_Prox": same("Data_Agendamento"),
                "Atendimentos.Hora_Prox": same("Hora_Agendamento"),
                "Atendimentos.Duracao_Prox": same("Duracao_Agendamento"),
                "Atendimentos.SituacaoAgendamento": same("Situacao_Agendamento"),
            },
        ),
        View("ConsultaCausas", words("Codigo Tipo Nome Descricao Situacao"), plain("causes")),
        View(
            "ConsultaChecklistAtendimentos",
            words(
                "Atendimento_Numero Checklist_Id Checklist_Descricao Checklist_Obrigatorio Checklist_Status"
            ),
            _checklist,
        ),
        View(
            "ConsultaFluxos",
            words("Codigo Descricao Planos GruposClientes GruposUsuarios Situacao"),
            plain("workflows"),
        ),
        View(
            "ConsultaOcorrenciasAtendimentos",
            words("Id Data Descricao Modo Usuario Latitude Longitude Atendimento_Numero"),
            plain("occurrences"),
            {
                "MapsLat": same("Latitude"),
                "MapsLng": same("Longitude"),
                "Atendimento": same("Atendimento_Numero"),
            },
        ),
        View(
            "ConsultaTopicos", words("Codigo Tipo Nome Descricao Central Abertura Situacao"), plain("topics")
        ),
        View("ConsultaAutenticacao", AUTH_FIELDS, _auth),
        View("ConsultaAutenticacaoSenha", (*AUTH_FIELDS, "Senha"), _auth),
        View("ConsultaClientes", CUSTOMER_FIELDS, plain("customers")),
        View(
            "ConsultaClientesBloqueados", words("Codigo Nome DataBloqueio DiasBloqueio"), _blocked_customers
        ),
        View(
            "ConsultaClientesReducao",
            words("Regra Cliente_Codigo Cliente_Nome Contrato_Numero Contrato_Descricao"),
            _reduced,
        ),
        View("ConsultaClienteOnline", words("Codigo Nome Online NasConectados"), _online),
        View(
            "ConsultaContatos",
            words("id Nome CPF Email Telefone1 Telefone2 Telefone3 Aniversario Tipo Situacao Cliente"),
            plain("contacts"),
        ),
        View(
            "ConsultarDadosAdicionais",
            words("Id Codigo Descricao Tabela Chave Valor"),
            lambda store, now: (
                {
                    **v,
                    "Descricao": _by(store, "additional_data", "Codigo").get(v["Codigo"], {}).get("Nome", ""),
                }
                for v in store.rows("additional_values")
            ),
        ),
        View(
            "ConsultaClientesCobranca",
            words(
                "Codigo Nome BcoCobr CodCobr Cobranca",
                "TipoImpressao DiaCobr DiasProtesto Cobr_Endereco Cobr_Complemento",
                "Cobr_Bairro Cobr_Cidade Cobr_UF Cobr_CEP Bloqueavel",
            ),
            plain("customers"),
        ),
        View(
            "ConsultaEquipamentosOnline",
            words(
                "Cliente_Codigo Cliente_Nome Contrato_Numero",
                "Contrato_Descricao DataHora_UltimaColeta NAS_IP NAS_Sigla",
                "NAS_Descricao NAS_Slot NAS_Porta",
                "Equipamento_Id Equipamento_Descricao Equipamento_Serial Equipamento_Sinal",
                "Equipamento_Txccq Equipamento_MaxCpe",
                "Equipamento_Temperatura Equipamento_TempoConectadoMinutos",
            ),
            _online_equipment,
        ),
        View(
            "ConsultaMercados",
            tuple(f for f in CUSTOMER_FIELDS if f not in ("Situacao", "Email", "AvisoPagamento")),
            _markets,
        ),
        View("ConsultaContratos", CONTRACT_FIELDS, _contracts),
        View(
            "ConsultaContratosBloqueados",
            words(
                "Contrato_Numero Contrato_Descricao Contrato_Bloqueio",
                "Contrato_Bloqueio_Usuario Cliente_Codigo Cliente_Nome",
            ),
            _blocked_contracts,
        ),
        View(
            "ConsultaModelosProduto",
            words("Codigo Tipo_Descricao Tipo_Id Descricao Marca"),
            plain("product_models"),
        ),
        View("ConsultaTiposProduto", words("Codigo Descricao"), plain("product_types")),
        View("ConsultaUnidadesProduto", words("Codigo Sigla Descricao"), plain("product_units")),
        View(
            "ConsultaCartoesCadastrados",
            words("Id TipoPessoa CodigoPessoa UltimosDigitos Bandeira TipoCartao CartaoPadrao"),
            plain("stored_cards"),
        ),
        View(
            "ConsultaDocumentosBaixados",
            SETTLED_FIELDS,
            _documents(settled=True),
            {alias: same(name) for alias, name in _SETTLED_ALIASES.items()},
        ),
        View(
            "ConsultaDocumentosAbertos",
            words(
                "Conta Vencimento Documento Historico Complemento Origem",
                "Valor Tipo CliFor Nome CPF_CNPJ Telefone1",
                "Telefone2 Telefone3 Convenio Banco",
                "NossoNumero ContratosVinculados Sequencia RegistradoNoBanco",
            ),
            _documents(settled=False),
            {
                "Data": same("Vencimento"),
                "Cliente": same("CliFor"),
                "BcoCobr": same("Banco"),
                "NroBanco": same("NossoNumero"),
                "DataLancto": same("DataLancamento"),
            },
        ),
        View(
            "FailOverEvents",
            words(
                "Id Host Type Server AffectedCustomers DownTime UpTime Status",
                "Source Description Duration Cause Solution",
            ),
            plain("failover"),
        ),
        View(
            "ConsutaFornecedores",
            words(
                "Codigo Tipo CNPJ_CNPF Nome Endereco Numero Complemento",
                "Bairro Cidade UF CEP Telefone1 Telefone2 TelFax",
                "RG_IE Sigla Inclusao Usuario Situacao Observacoes",
            ),
            plain("suppliers"),
        ),
        View("ConsultaStatusNAS", words("IPInterno Online"), _nas_status),
        # queries without filter support
        View("ConsultaGruposSLA", words("Codigo Descricao Situacao"), plain("sla_groups"), filterable=False),
        View(
            "ConsultaComplementoContatos",
            words("Codigo Tipo Nome"),
            plain("contact_complements"),
            filterable=False,
        ),
        View("ConsultaGruposCliente", words("Codigo Nome"), _groups, filterable=False),
        View("ConsultaConcorrencia", words("id Nome"), plain("competitors"), filterable=False),
        View("ConsultaMotivosCancelamento", words("id Nome"), plain("cancel_reasons"), filterable=False),
        View(
            "ConsultaCiclosFaturamento",
            words("id Dia Vencimento Situacao Descricao"),
            _cycles,
            filterable=False,
        ),
        View("ConsultaGruposCobranca", words("Codigo Nome"), plain("collection_groups"), filterable=False),
        View(
            "ConsultaDadosAdicionais", words("Codigo Tabela Nome"), plain("additional_data"), filterable=False
        ),
        View("ConsultaPlanos", words("Codigo Descricao Grupo"), _plans, filterable=False),
        View("ConsultaQoS", words("Codigo Descricao"), plain("qos"), filterable=False),
        View("ConsultaUsuarios", words("Usuario Situacao Email"), plain("users"), filterable=False),
    )
}
