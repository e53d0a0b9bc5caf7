"""The deterministic data set of a small Brazilian ISP in Greater São Paulo.

``generate(seed, now)`` always builds the same records for the same seed and the same date (dates
are laid out around "today" so that an overdue bill stays overdue). The first records are fixed,
well-known identities for demos and tests (``DEMO_IDENTITIES``); a few hundred random customers
with valid CPF/CNPJ, phones, addresses, contracts in every state, authentications, documents,
tickets and the lookup tables follow.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from bot.sandbox import brazil
from bot.sandbox.clock import system_clock
from bot.sandbox.store import Record, Store

DEFAULT_SEED = 20250310
CUSTOMERS = 300


@dataclass(frozen=True)
class DemoIdentities:
    """Fixed records every seeded sandbox holds, whatever the seed."""

    customer: int = 1001
    customer_name: str = "Maria Aparecida da Silva"
    customer_cpf: str = "52998224725"
    customer_mobile: str = "11987654321"
    customer_email: str = "maria.silva@example.com.br"
    pppoe_login: str = "maria.silva"
    pppoe_password: str = "Fibra@2025"  # noqa: S105 - a demo subscriber's fictitious PPPoE password
    contract: int = 5001
    plan: str = "Fibra 300 Mega"
    overdue_document: int = 300001
    open_document: int = 300002
    ticket: int = 70001
    technician: str = "tecnico.joao"
    blocked_customer: int = 1002
    blocked_customer_cpf: str = "11144477735"
    blocked_contract: int = 5002
    company: int = 1003
    company_cnpj: str = "11444777000161"
    company_contracts: tuple[int, ...] = (5003, 5004, 5005)
    #: The company's slips for this contract are issued by a bank with no PIX (code 16).
    no_pix_contract: int = 5004
    #: The company's first fiscal invoice was cancelled (invoices_issued_pdf answers its item code 9).
    cancelled_invoice: int = 1
    service_invoice: int = 1
    #: A company with an alphanumeric CNPJ (issued from July 2026), after the random customers.
    alnum_company: int = 1301
    alnum_company_cnpj: str = "12ABC34501DE35"
    alnum_company_mobile: str = "11991234560"
    alnum_company_contract: int = 5901
    telegram_mode: str = "7"
    bot_user: str = "ispbot"
    #: contract_cancel's ids: a reason for reversing bills, an account of nature Receipts, a history of
    #: operation Credit and type Term (the fine's), as an operator sets them (ISPBOT_CANCEL_*).
    cancel_reversal_reason: int = 1
    cancel_fine_account: int = 1
    cancel_fine_history: int = 2
    isp_name: str = "Fibra Sandbox Telecom Ltda"

    def lines(self) -> list[str]:
        return [
            f"customer {self.customer} {self.customer_name}: CPF {self.customer_cpf}, "
            f"mobile {self.customer_mobile}, PPPoE {self.pppoe_login} / {self.pppoe_password}",
            f"  contract {self.contract} ({self.plan}, active); open documents {self.overdue_document} "
            f"(overdue) and {self.open_document}; open technical ticket {self.ticket} for {self.technician}",
            f"customer {self.blocked_customer}: CPF {self.blocked_customer_cpf}, blocked contract "
            f"{self.blocked_contract}",
            f"company {self.company}: CNPJ {self.company_cnpj}, contracts "
            + ", ".join(map(str, self.company_contracts))
            + f" (bills of {self.no_pix_contract} have no PIX); fiscal invoices, service invoice "
            + f"{self.service_invoice}",
            f"company {self.alnum_company}: alphanumeric CNPJ {self.alnum_company_cnpj}, mobile "
            f"{self.alnum_company_mobile}, contract {self.alnum_company_contract}",
            f"technician users: tecnico.joao, tecnico.maria (active), tecnico.pedro (blocked), "
            f"tecnico.ana (inactive); ticket mode Telegram = {self.telegram_mode}",
        ]


DEMO_IDENTITIES = DemoIdentities()
D = DEMO_IDENTITIES

# ---- lookup tables (fixed) ---------------------------------------------------------------------
USERS = (
    ("admin", "A", "Administrador", False),
    ("ispbot", "A", "Bot do Telegram", False),
    ("ispbot.homolog", "A", "Bot (homologação)", False),
    ("portal", "A", "Portal", False),
    ("legacy", "I", "Integração antiga", False),
    ("atendente.carla", "A", "Carla Mendes", False),
    ("atendente.rui", "A", "Rui Barbosa", False),
    ("financeiro.lia", "A", "Lia Costa", False),
    ("tecnico.joao", "A", "João Batista", True),
    ("tecnico.maria", "A", "Maria Clara", True),
    ("tecnico.pedro", "B", "Pedro Henrique", True),
    ("tecnico.ana", "I", "Ana Paula", True),
    ("tecnico.lucas", "A", "Lucas Ferraz", True),
)
USER_GROUPS = ((1, "Suporte N1"), (2, "Técnicos de campo"), (3, "Financeiro"), (4, "Comercial"))
TOPICS = (  # code, type, name, description, central, opening, status, survey
    (1, "T", "Sem conexão", "Cliente sem acesso à internet", "S", "T", "A", True),
    (2, "T", "Lentidão", "Conexão lenta ou instável", "S", "T", "A", True),
    (3, "T", "Instalação", "Instalação de novo ponto", "N", "F", "A", False),
    (4, "T", "Retirada de equipamento", "Recolhimento de ONU/roteador", "N", "T", "A", False),
    (5, "A", "Segunda via de boleto", "Pedido de segunda via", "S", "T", "A", False),
    (6, "A", "Negociação de débito", "Acordo de pagamento", "S", "T", "A", False),
    (7, "A", "Cancelamento", "Pedido de cancelamento", "N", "T", "A", False),
    (8, "C", "Mudança de plano", "Upgrade ou downgrade", "S", "T", "A", True),
    (9, "C", "Novo contrato", "Venda de novo plano", "N", "A", "A", False),
    (10, "T", "Troca de senha Wi-Fi", "Alteração de senha", "S", "T", "I", False),
    (11, "A", "Contestação de cobrança", "Cobrança contestada pelo assinante", "N", "T", "A", False),
)
CAUSES = (
    (1, "T", "Cabo rompido", "Drop óptico rompido", "A"),
    (2, "T", "ONU travada", "Equipamento reiniciado", "A"),
    (3, "T", "Problema no cliente", "Roteador do cliente", "A"),
    (4, "T", "Manutenção na rede", "", "A"),
    (5, "A", "Boleto enviado", "Segunda via enviada", "A"),
    (6, "A", "Acordo realizado", "", "A"),
    (7, "C", "Plano alterado", "", "A"),
    (8, "C", "Cliente desistiu", "", "I"),
)
WORKFLOWS = (
    (1, "Instalação FTTH", "1,2,3", "", "2", "A", 3),
    (2, "Cancelamento com retirada", "", "", "1,2", "A", 7),
    (3, "Migração de plano antigo", "", "", "", "I", 8),
)
SLA_GROUPS = ((1, "Residencial 24h", "A", 24), (2, "Empresarial 4h", "A", 4), (3, "Legado", "I", 72))
CHECKLISTS = (  # id, description, mandatory, topics
    (1, "Conferir sinal óptico na ONU", "S", (1, 2, 3)),
    (2, "Testar velocidade com o cliente", "S", (1, 2, 3)),
    (3, "Fotografar a instalação", "N", (3,)),
    (4, "Recolher assinatura do cliente", "S", (3, 4)),
    (5, "Orientar sobre o Wi-Fi", "N", (1, 2)),
)
TICKET_MODES = (
    ("1", "Telefone"),
    ("2", "E-mail"),
    ("3", "Presencial"),
    ("4", "WhatsApp"),
    ("5", "Central do Assinante"),
    ("6", "Chat do site"),
    (D.telegram_mode, "Telegram"),
)
MARKETING_STIMULI = ((1, "Indicação"), (2, "Redes sociais"), (3, "Panfleto"))
CUSTOMER_GROUPS = ((1, "Residencial"), (2, "Empresarial"), (3, "Condomínios"), (4, "Funcionários"))
CONTACT_COMPLEMENTS = (
    (1, "F", "Cônjuge"),
    (2, "F", "Filho(a)"),
    (3, "J", "Sócio"),
    (4, "J", "Gerente"),
    (5, "J", "Responsável técnico"),
)
BILLING_CYCLES = ((1, 1, 10, "A"), (2, 5, 15, "A"), (3, 10, 20, "A"), (4, 20, 5, "A"), (5, 25, 30, "I"))
COLLECTION_GROUPS = ((1, "Cobrança padrão"), (2, "Cobrança empresarial"))
PLANS = (  # code, description, group, value, technology
    (1, "Fibra 100 Mega", "Residencial - Fibra", 79.90, "FTTH"),
    (2, "Fibra 300 Mega", "Residencial - Fibra", 99.90, "FTTH"),
    (3, "Fibra 600 Mega", "Residencial - Fibra", 129.90, "FTTH"),
    (4, "Fibra 1 Giga", "Residencial - Fibra", 199.90, "FTTH"),
    (5, "Rádio 20 Mega", "Residencial - Rádio", 69.90, "Rádio"),
    (6, "Empresarial 500 Mega", "Empresarial", 349.90, "FTTH"),
    (7, "Link Dedicado 100 Mega", "Empresarial", 1290.00, "FTTH"),
    (8, "TV + Fibra 300", "Combo", 159.90, "FTTH"),
)
PACKAGES = ((1, "Combo Família", (2, 8)), (2, "Empresa Completa", (6, 7)))
QOS = ((1, "Residencial padrão"), (2, "Empresarial prioridade"), (3, "Redução por inadimplência"))
COMPETITORS = ((1, "Vivo Fibra"), (2, "Claro NET"), (3, "TIM Live"), (4, "Provedor local concorrente"))
CANCEL_REASONS = (
    (1, "Mudança de endereço"),
    (2, "Preço"),
    (3, "Qualidade do serviço"),
    (4, "Foi para a concorrência"),
    (5, "Inadimplência"),
)
TRANSFER_REASONS = (
    (1, "Upgrade de plano", "Cliente pediu mais velocidade", "A"),
    (2, "Downgrade de plano", "Redução de custo", "A"),
    (3, "Mudança de titularidade", "", "I"),
)
PRODUCT_TYPES = ((1, "ONU/ONT"), (2, "Roteador"), (3, "Cabo"), (4, "Conector"))
PRODUCT_UNITS = ((1, "UN", "Unidade"), (2, "M", "Metro"), (3, "CX", "Caixa"))
PRODUCT_MODELS = (
    (1, 1, "ONU GPON HG8145", "Huawei"),
    (2, 1, "ONT F670L", "ZTE"),
    (3, 2, "Archer C6", "TP-Link"),
    (4, 3, "Drop óptico 1 fibra", "Furukawa"),
    (5, 4, "Conector SC/APC", "Multilaser"),
)
PRODUCTS = (  # id, code, description, model, serial controlled, unit, price
    (1, 1001, "ONU GPON Huawei HG8145", 1, True, 1, 249.00),
    (2, 1002, "Roteador TP-Link Archer C6", 3, True, 1, 299.00),
    (3, 2001, "Drop óptico (metro)", 4, False, 2, 1.50),
    (4, 2002, "Conector SC/APC", 5, False, 1, 3.90),
)
SERVICES = (
    (501, "Visita técnica", 80.00),
    (502, "Mudança de endereço", 150.00),
    (503, "Taxa de reativação", 50.00),
)
ADDITIONAL_DATA = (
    (1, "Clientes", "Ponto de referência"),
    (2, "Contratos", "Senha do Wi-Fi"),
    (3, "Atendimentos", "Nº da OS externa"),
    (4, "Clientes", "Time do coração"),
)
BANKS = (
    (1, "Banco do Brasil"),
    (104, "Caixa Econômica Federal"),
    (237, "Bradesco"),
    (341, "Itaú"),
    (756, "Sicoob"),
)
AGREEMENTS = {1: "2512345", 237: "1234567", 341: "7654321", 104: "1122334", 756: "9988776"}
ACCOUNTS = ((1, "Conta movimento BB", 1, "R"), (2, "Caixa interno", 0, "R"), (3, "Conta Sicoob", 756, "R"))
BANK_ACCOUNTS = {1: 1, 756: 3}  # the account a bank's slips are posted to
NO_PIX_BANKS = (756,)  # slips of this bank carry no PIX code (get_pix_copia_cola answers 16)
HISTORIES = ((1, "Mensalidade", "C", "P"), (2, "Multa contratual", "C", "P"), (3, "Adesão", "C", "P"))
NAS = (  # internal IP, short name, description, online
    ("10.0.0.1", "BNG-SP-01", "Concentrador Centro", True),
    ("10.0.0.2", "BNG-SP-02", "Concentrador Zona Norte", True),
    ("10.0.1.1", "BNG-ABC-01", "Concentrador ABC", True),
    ("10.0.2.1", "RB-OSA-01", "Mikrotik Osasco", False),
)
SERVERS = ((1, "radius-01"), (2, "radius-02"))
TEMPORARY_PLANS = (3, 4)  # plans offered as a trial upgrade


def _user_tables(store: Store) -> None:
    for user, status, name, tech in USERS:
        store.insert(
            "users",
            {
                "Usuario": user,
                "Situacao": status,
                "Email": f"{user}@provedor.example.com.br",
                "nome": name,
                "tecnico": tech,
                "grupo": 2 if tech else 1,
            },
        )
    for gid, name in USER_GROUPS:
        store.insert("user_groups", {"id": gid, "Grupo": name})


def _ticket_tables(store: Store) -> None:
    for code, kind, name, desc, central, opening, status, survey in TOPICS:
        store.insert(
            "topics",
            {
                "Codigo": code,
                "Tipo": kind,
                "Nome": name,
                "Descricao": desc,
                "Central": central,
                "Abertura": opening,
                "Situacao": status,
                "pesquisa": survey,
            },
        )
    for code, kind, name, desc, status in CAUSES:
        store.insert(
            "causes", {"Codigo": code, "Tipo": kind, "Nome": name, "Descricao": desc, "Situacao": status}
        )
    for code, desc, plans, cgroups, ugroups, status, topic in WORKFLOWS:
        store.insert(
            "workflows",
            {
                "Codigo": code,
                "Descricao": desc,
                "Planos": plans,
                "GruposClientes": cgroups,
                "GruposUsuarios": ugroups,
                "Situacao": status,
                "topico": topic,
            },
        )


def _service_tables(store: Store) -> None:
    for code, desc, status, hours in SLA_GROUPS:
        store.insert("sla_groups", {"Codigo": code, "Descricao": desc, "Situacao": status, "horas": hours})
    for cid, desc, mandatory, topics in CHECKLISTS:
        store.insert(
            "checklists", {"Id": cid, "Descricao": desc, "Obrigatorio": mandatory, "topicos": list(topics)}
        )


def _mode_tables(store: Store) -> None:
    for mode, label in TICKET_MODES:
        store.insert("ticket_modes", {"code": mode, "description": label})
    for code, desc in MARKETING_STIMULI:
        store.insert("marketing_stimuli", {"Codigo": code, "Descricao": desc})


def _customer_tables(store: Store) -> None:
    for code, name in CUSTOMER_GROUPS:
        store.insert(
            "customer_groups",
            {"Codigo": code, "Nome": name, "descricao": "", "prioridade": 0, "situacao": "A"},
        )
    for code, kind, name in CONTACT_COMPLEMENTS:
        store.insert("contact_complements", {"Codigo": code, "Tipo": kind, "Nome": name})
    for cid, start, due, status in BILLING_CYCLES:
        end = 31 if start == 1 else start - 1
        store.insert(
            "billing_cycles",
            {
                "id": cid,
                "Dia": start,
                "Vencimento": due,
                "Situacao": status,
                "Descricao": f"{start} a {end} / {due}",
            },
        )
    for code, name in COLLECTION_GROUPS:
        store.insert("collection_groups", {"Codigo": code, "Nome": name})
    for code, desc, group, value, tech in PLANS:
        store.insert(
            "plans",
            {
                "Codigo": code,
                "Descricao": desc,
                "Grupo": group,
                "valor": value,
                "tecnologia": tech,
                "tipo": "Internet",
            },
        )
    for code, desc, plans in PACKAGES:
        store.insert("packages", {"Codigo": code, "Descricao": desc, "planos": list(plans)})
    for rows, table in ((QOS, "qos"), (COMPETITORS, "competitors"), (CANCEL_REASONS, "cancel_reasons")):
        for code, name in rows:
            store.insert(
                table, {"Codigo": code, "Descricao": name} if table == "qos" else {"id": code, "Nome": name}
            )
    for tid, name, desc, status in TRANSFER_REASONS:
        store.insert("transfer_reasons", {"id": tid, "name": name, "description": desc, "status": status})


def _stock_tables(store: Store) -> None:
    for code, desc in PRODUCT_TYPES:
        store.insert("product_types", {"Codigo": code, "Descricao": desc})
    for code, sigla, desc in PRODUCT_UNITS:
        store.insert("product_units", {"Codigo": code, "Sigla": sigla, "Descricao": desc})
    types = dict(PRODUCT_TYPES)
    for code, type_id, desc, brand in PRODUCT_MODELS:
        store.insert(
            "product_models",
            {
                "Codigo": code,
                "Tipo_Descricao": types[type_id],
                "Tipo_Id": type_id,
                "Descricao": desc,
                "Marca": brand,
            },
        )
    for pid, code, desc, model, serial, unit, price in PRODUCTS:
        store.insert(
            "products",
            {
                "id": pid,
                "code": code,
                "description": desc,
                "model_id": model,
                "serial_controlled": serial,
                "unit_id": unit,
                "sale_price": price,
                "status": "A",
                "saldo": {} if serial else {"1": 500.0, "2": 0.0},
            },
        )
        if serial:
            for n in range(1, 9):
                store.insert(
                    "serials",
                    {
                        "product_id": pid,
                        "serial": f"SN{pid:02d}{n:06d}",
                        "disponivel": True,
                        "location_id": 1,
                    },
                )
    for code, desc, price in SERVICES:
        store.insert("services", {"id": code, "description": desc, "sale_price": price})


def _finance_tables(store: Store) -> None:
    for code, table, name in ADDITIONAL_DATA:
        store.insert("additional_data", {"Codigo": code, "Tabela": table, "Nome": name})
    for code, name in BANKS:
        store.insert(
            "banks",
            {"code": code, "name": name, "convenio": AGREEMENTS[code], "pix": code not in NO_PIX_BANKS},
        )
    for aid, name, bank, nature in ACCOUNTS:
        store.insert("accounts", {"id": aid, "name": name, "bank": bank, "natureza": nature})
    for hid, name, op, kind in HISTORIES:
        store.insert("histories", {"id": hid, "Descricao": name, "operacao": op, "tipo": kind})
    for index, (ip, short, desc, online) in enumerate(NAS, start=1):
        store.insert(
            "nas",
            {
                "id": index,
                "IPInterno": ip,
                "Sigla": short,
                "Descricao": desc,
                "online": online,
                "servidor": 1 + index % 2,
            },
        )
    for sid, name in SERVERS:
        store.insert("servers", {"id": sid, "name": name})


def _site_tables(store: Store) -> None:
    for location, name in ((1, "Almoxarifado central"), (2, "Veículo técnico 01")):
        store.insert("stock_locations", {"id": location, "name": name})
    store.insert("settings", {"id": 1, "min_distance_to_execute": True, "transitory_stock_location": True})
    store.insert("email_gateways", {"id": 1, "name": "SMTP principal"})


# ---- people ------------------------------------------------------------------------------------
class _People:
    def __init__(self, rng: random.Random, today: date) -> None:
        self.rng = rng
        self.today = today

    def person_name(self) -> str:
        r = self.rng
        return f"{r.choice(brazil.FIRST_NAMES)} {r.choice(brazil.LAST_NAMES)} {r.choice(brazil.LAST_NAMES)}"

    def company_name(self) -> str:
        r = self.rng
        return f"{r.choice(brazil.COMPANY_WORDS)} {r.choice(brazil.LAST_NAMES)} Ltda"

    def mobile(self, ddd: str = "11") -> str:
        return ddd + "9" + "".join(str(self.rng.randrange(10)) for _ in range(8))

    def landline(self, ddd: str = "11") -> str:
        return ddd + str(self.rng.choice((2, 3, 4))) + "".join(str(self.rng.randrange(10)) for _ in range(7))

    def address(self) -> dict[str, Any]:
        r = self.rng
        code, city, uf, prefix, lat, lng = r.choice(brazil.CITIES)
        return {
            "Endereco": r.choice(brazil.STREETS),
            "Numero": r.randrange(10, 3000),
            "Complemento": r.choice(("", "", "Casa 2", "Apto 12", "Bloco B apto 31", "Fundos")),
            "Bairro": r.choice(brazil.NEIGHBORHOODS),
            "Cidade": city,
            "Distrito": "",
            "UF": uf,
            "CEP": prefix + "".join(str(r.randrange(10)) for _ in range(5)),
            "municipio": code,
            "MapsMarkLat": round(lat + r.uniform(-0.05, 0.05), 7),
            "MapsMarkLng": round(lng + r.uniform(-0.05, 0.05), 7),
        }


def customer_record(
    code: int,
    kind: str,
    tax_id: str,
    name: str,
    address: dict[str, Any],
    *,
    mobile: str,
    email: str,
    since: date,
    group: int,
    due_day: int,
    rg: str = "",
    home: str = "",
    work: str = "",
    birth: date | None = None,
    nickname: str = "",
) -> Record:
    return {
        "Codigo": code,
        "Tipo": kind,
        "CNPJ_CNPF": tax_id,
        "Nome": name,
        **address,
        "TelComercial": work,
        "TelResidencial": home,
        "TelCelular": mobile,
        "BcoCobr": 1,
        "RG_IE": rg,
        "Nascimento": birth.isoformat() if birth else None,
        "CodCobr": f"{code:08d}",
        "Cobranca": "R",
        "TipoImpressao": "B",
        "DiaCobr": due_day,
        "DiasProtesto": 0,
        "Sigla": nickname,
        "Cobr_Endereco": address["Endereco"],
        "Cobr_Complemento": address["Complemento"],
        "Cobr_Bairro": address["Bairro"],
        "Cobr_Cidade": address["Cidade"],
        "Cobr_UF": address["UF"],
        "Cobr_CEP": address["CEP"],
        "Bloqueavel": "S",
        "Inclusao": since.isoformat(),
        "usuario": "admin",
        "Observacoes": "",
        "Grupo": group,
        "Situacao": "A",
        "Email": email,
        "AvisoPagamento": "S",
        "TipoConta": "POS",
        "servidor": 1,
    }


def contract_record(
    number: int,
    customer: Record,
    plan: int,
    state: str,
    start: date,
    *,
    cycle: int,
    discount: float = 0.0,
    qos: int = 1,
    sla: int = 1,
    package: int | None = None,
    last_operation: date | None = None,
) -> Record:
    code, desc, _group, value, tech = PLANS[plan - 1]
    cycle_row = BILLING_CYCLES[cycle - 1]
    address = {
        "Logradouro": customer["Endereco"],
        "Numero": customer["Numero"],
        "Complemento": customer["Complemento"],
        "Bairro": customer["Bairro"],
        "Cidade": customer["Cidade"],
        "UF": customer["UF"],
        "CEP": customer["CEP"],
        "Pais": "Brasil",
        "LocalidadeId": customer["municipio"],
        "BairroId": None,
        "LogradouroId": None,
        "MapsPlaceId": "",
        "Latitude": customer["MapsMarkLat"],
        "Longitude": customer["MapsMarkLng"],
    }
    record: Record = {
        "Numero": number,
        "Cliente_Codigo": customer["Codigo"],
        "Plano_Codigo": code,
        "Plano_Descricao": desc,
        "Pacote_Codigo": package,
        "Pacote_Descricao": PACKAGES[package - 1][1] if package else "",
        "Pacote_PacoteID": package,
        "Modelos_Contrato": "1",
        "Situacao_Codigo": state,
        "Assinatura": start.isoformat(),
        "Inicio": start.isoformat(),
        "DataUltimaOperacao": last_operation.isoformat() if last_operation else None,
        "Data_Validade": (start + timedelta(days=365)).isoformat(),
        "Aceite_Eletronico_Data": start.isoformat(),
        "CicloFaturamento_DiaBase": cycle_row[1],
        "CicloFaturamento_Vencimento": cycle_row[2],
        "ciclo": cycle,
        "ValorBruto": value,
        "DescontoFixo": discount,
        "ValorLiquido": round(value - discount, 2),
        "DescontoPromocional_Valor": 0.0,
        "DescontoPromocional_Prazo": 0,
        "DescontoPromocional_Descricao": "",
        "Vigencia": 12,
        "Adesao_Valor": 0.0,
        "Plano_Valor": value,
        "Plano_Tipo": "Internet",
        "Agrupamento": "N",
        "Assinado": "S",
        "Vendedor": "Loja Centro",
        "Vigencia_Situacao": "Vigente",
        "Qtde_Dias_Vencido": 0,
        "SLA": SLA_GROUPS[sla - 1][1],
        "sla_id": sla,
        "QoS": QOS[qos - 1][1],
        "qos_id": qos,
        "Tecnologia": tech,
        "EnderecoInstalacao_UsadoParaCobranca": "S",
        "Aceite_Eletronico": "S",
        "Aceite_Eletronico_IP": "",
        "Aceite_Eletronico_Origem": "",
        "Cancelamento_Motivo": "",
        "Cancelamento_Concorrencia": "",
        "Ultima_Operacao_Usuario": "admin" if last_operation else "",
        "Cancelamento_Agendado_Data": "",
        "Cancelamento_Agendado_Registro": "",
        "Cancelamento_Agendado_Usuario": "",
        "quantidade": 1,
        "banco": 1,
        "convenio": AGREEMENTS[1],
        "texto": "",
    }
    for prefix in ("EnderecoCobranca_", "EnderecoInstalacao_"):
        record.update({prefix + key: value for key, value in address.items()})
    return record


def document_record(
    sequence: int,
    customer: Record,
    contracts: list[int],
    due: date,
    amount: float,
    *,
    paid_on: date | None,
    origin: str = "FAT",
    bank: int = 1,
) -> Record:
    number = 100000 + sequence % 100000
    our_number = f"{sequence:011d}"
    agreement = AGREEMENTS.get(bank, "0000000")  # an operator's fixture may name other banks
    line = brazil.digitable_line(
        f"{bank:03d}", due, round(amount * 100), agreement + our_number[-10:] + "00000000"
    )
    posted = due - timedelta(days=15)
    return {
        "Sequencia": sequence,
        "Tipo": "C",
        "Cobranca": "R",
        "CodigoPessoa": customer["Codigo"],
        "DocumentoPessoa": customer["CNPJ_CNPF"],
        "NomePessoa": customer["Nome"],
        "Conta": BANK_ACCOUNTS.get(bank, 1),
        "Historico": "Mensalidade",
        "HistoricoBaixa": "Pagamento" if paid_on else "",
        "ContaContrapartida": None,
        "Documento": number,
        "NossoNumero": our_number,
        "Origem": origin,
        "Banco": bank,
        "Convenio": int(agreement),
        "Complemento": f"Mensalidade {due.month:02d}/{due.year}",
        "DataLancamento": posted.isoformat(),
        "DataVencimento": due.isoformat(),
        "DataBaixa": paid_on.isoformat() if paid_on else None,
        "Motivo": "PAGTO" if paid_on else "",
        "FormaPagto": "N" if paid_on else "",
        "ValorOriginal": amount,
        "ValorJuros": 0.0,
        "ValorMulta": 0.0,
        "ValorDesconto": 0.0,
        "UsuarioBaixa": "financeiro.lia" if paid_on else "",
        "DataHoraExecucaoBaixa": f"{paid_on.isoformat()} 10:15:00" if paid_on else None,
        "contratos": contracts,
        "linha_digitavel": line,
        "RegistradoNoBanco": "S",
    }


ISP_CNPJ = "12345678000195"


def fiscal_invoice(number: int, customer: Record, doc: Record) -> Record:
    """A communication-services invoice for one bill, in invoices_issued's shape (numbers as strings)."""
    issue = date.fromisoformat(doc["DataLancamento"])
    key = f"35{issue:%y%m}{ISP_CNPJ}21001{1000 + number:09d}1{doc['Sequencia']:08d}"
    value = f"{doc['ValorOriginal']:.2f}"
    return {
        "id": number,
        "model": "21",
        "serial": "1",
        "number": str(1000 + number),
        "access_key": key + brazil.mod11(key),
        "issue": doc["DataLancamento"],
        "customer_id": customer["Codigo"],
        "nature_of_operation": "Prestação de serviço de comunicação multimídia",
        "value": value,
        "status": "canceled" if number == D.cancelled_invoice else "issued",
        "items": [
            {
                "item": "1",
                "code": "1",
                "description": doc["Complemento"],
                "cfop": "5307",
                "unit": "UN",
                "quantity": "1.0000",
                "unit_value": value,
                "gross_value": value,
                "discount": "0.00",
                "other_expenses": "0.00",
                "net_value": value,
            }
        ],
        "document": [
            {
                "document_number": str(doc["Documento"]),
                "due_date": doc["DataVencimento"],
                "document_value": value,
                "document_status": "paid" if doc.get("DataBaixa") else "open",
            }
        ],
    }


def _month(day: date, delta: int, dom: int) -> date:
    month = day.month - 1 + delta
    year = day.year + month // 12
    return date(year, month % 12 + 1, min(dom, 28))


def customer_situation(states: list[str]) -> str:
    """What ConsultaClientes shows for a customer, from the states of its contracts."""
    for state in ("A", "B", "S", "I", "E"):
        if state in states:
            return state
    return "C" if states else "E"


# ---- the whole set -----------------------------------------------------------------------------
class _Builder:
    def __init__(self, seed: int, today: date) -> None:
        self.rng = random.Random(seed)
        # Times are laid out back from midnight so that nothing seeded lies in the future of any "now" today.
        self.now = datetime.combine(today, datetime.min.time())
        self.today = today
        self.people = _People(self.rng, self.today)
        self.store = Store()
        self.doc_seq = 300002
        self.ticket_seq = 70000
        self.occurrence_seq = 0

    def ago(self, days: int, hour: int = 9) -> datetime:
        return datetime.combine(self.today - timedelta(days=days), datetime.min.time()).replace(hour=hour)

    # customers and what hangs off them
    def add_customer(self, record: Record) -> Record:
        return self.store.insert("customers", record)

    def add_contract(
        self, customer: Record, number: int, plan: int, state: str, start: date, **kw: Any
    ) -> Record:
        last = None if state in ("A", "E", "I") else self.today - timedelta(days=self.rng.randrange(3, 60))
        return self.store.insert(
            "contracts",
            contract_record(
                number, customer, plan, state, start, last_operation=kw.pop("last_operation", last), **kw
            ),
        )

    def add_authentication(self, contract: Record, login: str, password: str, online: bool) -> Record:
        r = self.rng
        nas = NAS[contract["Numero"] % 3] if online else r.choice(NAS)
        auth = self.store.insert(
            "authentications",
            {
                "Id": None,
                "Cliente": contract["Cliente_Codigo"],
                "Contrato": contract["Numero"],
                "NAS": nas[0],
                "Porta": "-1",
                "Usuario": login,
                "Senha": password,
                "MAC": ":".join(f"{r.randrange(256):02X}" for _ in range(6)),
                "Observacao": "",
                "status": "A",
                "allow_access_subscriber_center": True,
                "allow_update_password": True,
                "force_password_update": False,
                "profile_id": None,
            },
            "Id",
        )
        if online and contract["Situacao_Codigo"] == "A":
            start = self.now - timedelta(minutes=r.randrange(30, 60 * 24 * 9))
            minutes = int((self.now - start).total_seconds()) // 60
            customer = self.store.find("customers", Codigo=contract["Cliente_Codigo"])
            assert customer is not None  # noqa: S101
            self.store.insert(
                "sessions",
                {
                    "session_id": f"{r.getrandbits(64):016x}",
                    "customer_id": customer["Codigo"],
                    "customer_name": customer["Nome"],
                    "contract_id": contract["Numero"],
                    "plan_id": contract["Plano_Codigo"],
                    "plan_description": contract["Plano_Descricao"],
                    "authentication_username": login,
                    "framed_ipv4_address": f"100.64.{contract['Numero'] % 250}.{r.randrange(2, 254)}",
                    "framed_ipv6_address": "",
                    "delegated_ipv6_prefix": f"2804:abcd:{contract['Numero']:x}::/56",
                    "session_start_time": start.strftime("%Y-%m-%d %H:%M:%S"),
                    "session_up_time": f"{minutes // 60:02d}:{minutes % 60:02d}:00",
                    "nas_port_id": f"pppoe-{login}",
                    "calling_station_id": auth["MAC"],
                    "input_octets": r.randrange(10**8, 10**11),
                    "output_octets": r.randrange(10**7, 10**10),
                    "server": "1",  # the RADIUS server's code: disconnect_online_customer's server_id
                    "server_id": 1,
                    "nas_ip_address": nas[0],
                },
            )
        return auth

    def add_documents(
        self, customer: Record, contract: Record, *, overdue: int, months_paid: int = 3, bank: int = 1
    ) -> None:
        dom = contract["CicloFaturamento_Vencimento"]
        dues = [_month(self.today, delta, dom) for delta in range(-(months_paid + overdue), 2)]
        past = [due for due in dues if due < self.today]
        upcoming = [due for due in dues if due >= self.today][:1]
        for index, due in enumerate(past + upcoming):
            unpaid = due >= self.today or index >= len(past) - overdue
            paid_on = None if unpaid else due - timedelta(days=self.rng.randrange(0, 4))
            self.doc_seq += 1
            self.store.insert(
                "documents",
                document_record(
                    self.doc_seq,
                    customer,
                    [contract["Numero"]],
                    due,
                    contract["ValorLiquido"],
                    paid_on=paid_on,
                    bank=bank,
                ),
            )
        if overdue and past:
            contract["Qtde_Dias_Vencido"] = (self.today - past[len(past) - overdue]).days

    def add_invoices(self, customer: Record) -> None:
        """A fiscal invoice (model 21) per bill already posted, the first one cancelled, and a service
        invoice for the installation."""
        posted = [
            doc
            for doc in self.store.where("documents", CodigoPessoa=customer["Codigo"])
            if doc["DataLancamento"] <= self.today.isoformat()
        ]
        posted.sort(key=lambda doc: (doc["DataLancamento"], doc["Sequencia"]))
        for index, doc in enumerate(posted, start=1):
            self.store.insert("fiscal_invoices", fiscal_invoice(index, customer, doc))
        self.store.insert(
            "service_invoices",
            {
                "id": D.service_invoice,
                "customer_id": customer["Codigo"],
                "document_id": posted[0]["Sequencia"] if posted else None,
                "number": f"{self.today.year}/000123",
                "issue": posted[0]["DataLancamento"] if posted else self.today.isoformat(),
                "description": "Instalação e configuração da rede interna",
                "value": 450.0,
            },
        )

    def add_equipment(self, contract: Record, customer: Record) -> None:
        r = self.rng
        eid = self.store.next_id("equipment", "id")
        self.store.insert(
            "equipment",
            {
                "id": eid,
                "customer_id": customer["Codigo"],
                "customer_name": customer["Nome"],
                "contract_id": contract["Numero"],
                "source": "comodato",
                "serial": f"HWTC{r.getrandbits(32):08X}",
                "product_code": 1001,
                "product_description": "ONU GPON Huawei HG8145",
                "activate_date": contract["Inicio"],
                "deactivation_date": None,
                "deactivation_reason": "",
                "quantity": 1,
                "unit_price": 249.0,
                "total_price": 249.0,
                "controller_ip": "10.0.10.1",
                "controller_port": f"0/{r.randrange(1, 16)}/{r.randrange(1, 16)}",
                "status": "active",
                "additional_data": [],
                "signal": -round(r.uniform(15, 27), 1),
                "txccq": r.randrange(60, 100),
                "maxcpe": 4,
                "temperature": r.randrange(35, 60),
                "minutes": r.randrange(10, 20000),
                "last_collect": (self.now - timedelta(minutes=r.randrange(1, 15))).strftime(
                    "%Y-%m-%d %H:%M:%S"
                ),
            },
        )

    def add_ticket(
        self,
        customer: Record,
        contract: Record | None,
        topic: tuple[Any, ...],
        *,
        opened: datetime,
        closed: bool,
        technician: str | None,
        os_status: str,
        number: int | None = None,
        subject: str | None = None,
    ) -> Record:
        r = self.rng
        self.ticket_seq = number if number is not None else self.ticket_seq + 1
        cause = next((c for c in CAUSES if c[1] == topic[1]), CAUSES[0])
        closing = opened + timedelta(hours=r.randrange(1, 48)) if closed else None
        ticket = self.store.insert(
            "tickets",
            {
                "Numero": self.ticket_seq,
                "Protocolo": int(opened.strftime("%Y%m%d")) * 100000 + self.ticket_seq % 100000,
                "Abertura_DataHora": opened.strftime("%Y-%m-%d %H:%M:%S"),
                "Abertura_Usuario": "atendente.carla",
                "Designacao_Tipo": "usuario" if technician else "grupo",
                "Designacao_Usuario": technician or "",
                "Designacao_Grupo_Id": "" if technician else "1",
                "Designacao_Grupo_Nome": "" if technician else "Suporte N1",
                "Situacao_OS": os_status,
                "Topico": topic[2],
                "topico": topic[0],
                "Assunto": subject or topic[3],
                "Solucao": "Atendimento concluído" if closed else "",
                "Encerramento_DataHora": closing.strftime("%Y-%m-%d %H:%M:%S") if closing else None,
                "Causa": cause[2] if closed else "",
                "causa": cause[0] if closed else None,
                "encerramento_usuario": (technician or "atendente.carla") if closed else "",
                "Tipo": topic[1],
                "TipoCliente": "C",
                "CodigoCliente": customer["Codigo"],
                "Data_Agendamento": None,
                "Hora_Agendamento": None,
                "Duracao_Agendamento": None,
                "Situacao_Agendamento": "",
                "contrato": contract["Numero"] if contract else None,
                "contato": None,
                "prioridade": r.randrange(0, 5),
                "status": "" if closed else r.choice(("", "in_progress", "on_hold")),
                "modo": r.choice(TICKET_MODES)[0],
                "iniciativa": "C",
                "fluxo": None,
                "sla": 1,
                "pesquisa": topic[7],
            },
        )
        self.add_occurrence(
            ticket, opened, f"Atendimento aberto: {ticket['Assunto']}", mode="A", user="atendente.carla"
        )
        if os_status in ("A", "E", "P", "C", "B") and technician:
            self.add_occurrence(
                ticket,
                opened + timedelta(hours=1),
                "Técnico a caminho",
                mode="M",
                user=technician,
                coords=(-23.55 + r.uniform(-0.05, 0.05), -46.63 + r.uniform(-0.05, 0.05)),
            )
        if topic[1] == "T" and not closed:
            for cid, _desc, _mandatory, topics in CHECKLISTS:
                if topic[0] in topics:
                    self.store.insert(
                        "ticket_checklists",
                        {
                            "Atendimento_Numero": ticket["Numero"],
                            "Checklist_Id": cid,
                            "Checklist_Status": "N",
                        },
                    )
        return ticket

    def add_occurrence(
        self,
        ticket: Record,
        when: datetime,
        text: str,
        *,
        mode: str,
        user: str,
        coords: tuple[float, float] | None = None,
    ) -> None:
        self.occurrence_seq += 1
        self.store.insert(
            "occurrences",
            {
                "Id": self.occurrence_seq,
                "Data": when.strftime("%Y-%m-%d %H:%M:%S"),
                "Descricao": text,
                "Modo": mode,
                "Usuario": user,
                "Latitude": round(coords[0], 7) if coords else None,
                "Longitude": round(coords[1], 7) if coords else None,
                "Atendimento_Numero": ticket["Numero"],
                "protocolo": None,
            },
        )

    def schedule(self, ticket: Record, day: date, time: str, duration: str, status: str) -> None:
        ticket.update(
            {
                "Data_Agendamento": day.isoformat(),
                "Hora_Agendamento": time + ":00",
                "Duracao_Agendamento": duration + ":00",
                "Situacao_Agendamento": status,
            }
        )

    # the fixed identities first
    def demo(self) -> None:
        p = self.people
        since = self.today - timedelta(days=400)
        sp = brazil.CITIES[0]
        home = {
            "Endereco": "Rua das Flores",
            "Numero": 120,
            "Complemento": "Apto 42",
            "Bairro": "Vila Mariana",
            "Cidade": sp[1],
            "Distrito": "",
            "UF": sp[2],
            "CEP": "04117040",
            "municipio": sp[0],
            "MapsMarkLat": -23.5869,
            "MapsMarkLng": -46.6353,
        }
        maria = self.add_customer(
            customer_record(
                D.customer,
                "F",
                D.customer_cpf,
                D.customer_name,
                home,
                mobile=D.customer_mobile,
                email=D.customer_email,
                since=since,
                group=1,
                due_day=10,
                rg="123456789",
                birth=date(1985, 6, 14),
                nickname="Maria",
                home="1133334444",
            )
        )
        contract = self.add_contract(maria, D.contract, 2, "A", since, cycle=3)
        self.add_authentication(contract, D.pppoe_login, D.pppoe_password, online=True)
        self.add_equipment(contract, maria)
        for number, due in (
            (D.overdue_document, self.today - timedelta(days=12)),
            (D.open_document, self.today + timedelta(days=18)),
        ):
            self.store.insert(
                "documents", document_record(number, maria, [D.contract], due, 99.90, paid_on=None)
            )
        for back in range(13, 0, -1):  # a year and more of paid bills: the yearly discharge statement
            self.doc_seq += 1
            due = self.today - timedelta(days=12 + 30 * back)
            self.store.insert(
                "documents",
                document_record(
                    self.doc_seq, maria, [D.contract], due, 99.90, paid_on=due - timedelta(days=1)
                ),
            )
        self.store.insert(
            "contacts",
            {
                "id": 1,
                "Nome": "José da Silva",
                "CPF": "",
                "Email": "jose.silva@example.com.br",
                "Telefone1": "11976543210",
                "Telefone2": "",
                "Telefone3": "",
                "Aniversario": "",
                "Tipo": "G",
                "Situacao": "A",
                "Cliente": D.customer,
                "tipo_pessoa": "C",
                "complemento": 1,
            },
        )
        ticket = self.add_ticket(
            maria,
            contract,
            TOPICS[0],
            opened=self.ago(1, 8),
            closed=False,
            technician=D.technician,
            os_status="F",
            number=D.ticket,
            subject="Sem conexão desde ontem à noite",
        )
        ticket["status"] = "in_progress"
        self.schedule(ticket, self.today, "14:00", "01:30", "confirmed")
        self.add_ticket(
            maria, contract, TOPICS[4], opened=self.ago(40), closed=True, technician=None, os_status=""
        )

        joao_home = p.address()
        joao = self.add_customer(
            customer_record(
                D.blocked_customer,
                "F",
                D.blocked_customer_cpf,
                "João Pereira Santos",
                joao_home,
                mobile="11991234567",
                email="joao.santos@example.com.br",
                since=since,
                group=1,
                due_day=5,
            )
        )
        blocked = self.add_contract(
            joao, D.blocked_contract, 1, "B", since, cycle=2, last_operation=self.today - timedelta(days=6)
        )
        self.add_authentication(blocked, "joao.santos", "Joao#1234", online=False)
        self.add_documents(joao, blocked, overdue=2)

        office = p.address()
        company = self.add_customer(
            customer_record(
                D.company,
                "J",
                D.company_cnpj,
                "Padaria Pão Quente Ltda",
                office,
                mobile="11998887766",
                email="contato@paoquente.example.com.br",
                since=since,
                group=2,
                due_day=20,
                rg="110042490114",
                work="1140041234",
                nickname="Pão Quente",
            )
        )
        for number, plan, state in zip(D.company_contracts, (6, 7, 2), ("A", "A", "S"), strict=True):
            made = self.add_contract(company, number, plan, state, since, cycle=3, sla=2, qos=2)
            if state != "S":
                self.add_authentication(made, f"paoquente{number}", f"Pq{number}!", online=True)
                bank = NO_PIX_BANKS[0] if number == D.no_pix_contract else 1
                self.add_documents(company, made, overdue=0, bank=bank)
        self.add_invoices(company)
        self.store.insert(
            "contacts",
            {
                "id": 2,
                "Nome": "Roberto Alves",
                "CPF": "",
                "Email": "roberto@paoquente.example.com.br",
                "Telefone1": "11998887766",
                "Telefone2": "1140041234",
                "Telefone3": "",
                "Aniversario": "",
                "Tipo": "A",
                "Situacao": "A",
                "Cliente": D.company,
                "tipo_pessoa": "C",
                "complemento": 3,
            },
        )

    def alphanumeric_company(self) -> None:
        """After the random customers, so that adding it changed none of them."""
        sp, since = brazil.CITIES[0], self.today - timedelta(days=30)
        office = {
            "Endereco": "Avenida Paulista",
            "Numero": 1500,
            "Complemento": "Conjunto 81",
            "Bairro": "Bela Vista",
            "Cidade": sp[1],
            "Distrito": "",
            "UF": sp[2],
            "CEP": "01310200",
            "municipio": sp[0],
            "MapsMarkLat": -23.5614,
            "MapsMarkLng": -46.6559,
        }
        company = self.add_customer(
            customer_record(
                D.alnum_company,
                "J",
                D.alnum_company_cnpj,
                "Nova Era Tecnologia Ltda",
                office,
                mobile=D.alnum_company_mobile,
                email="contato@novaera.example.com.br",
                since=since,
                group=2,
                due_day=10,
                work="1130405060",
            )
        )
        contract = self.add_contract(company, D.alnum_company_contract, 6, "A", since, cycle=1, sla=2)
        self.add_authentication(contract, "novaera", "Nova#2026", online=True)

    def random_customers(self) -> None:
        r, p = self.rng, self.people
        contract_no = 5100
        states = "A" * 30 + "B" * 4 + "S" * 2 + "C" * 4 + "E" * 2 + "I" * 2 + "T" * 2
        contact_id = 10
        for code in range(D.company + 1, D.customer + CUSTOMERS):
            company = r.random() < 0.15
            tax_id = brazil.cnpj(r) if company else brazil.cpf(r)
            name = p.company_name() if company else p.person_name()
            since = self.today - timedelta(days=r.randrange(30, 2000))
            email = (
                f"{name.split()[0].lower()}.{code}@example.com.br".replace("á", "a")
                .replace("ã", "a")
                .replace("é", "e")
                .replace("í", "i")
                .replace("ô", "o")
                .replace("ú", "u")
                .replace("â", "a")
            )
            customer = self.add_customer(
                customer_record(
                    code,
                    "J" if company else "F",
                    tax_id,
                    name,
                    p.address(),
                    mobile=p.mobile(),
                    email=email,
                    since=since,
                    group=2 if company else r.choice((1, 1, 1, 3, 4)),
                    due_day=r.choice((5, 10, 15, 20)),
                    home="" if company else r.choice(("", p.landline())),
                    work=p.landline() if company else "",
                    rg=str(r.randrange(10**8, 10**9)),
                    birth=None
                    if company
                    else date(r.randrange(1950, 2004), r.randrange(1, 13), r.randrange(1, 29)),
                )
            )
            for _ in range(1 + (r.random() < 0.25) + (company and r.random() < 0.5)):
                contract_no += 1
                state = r.choice(states)
                plan = r.choice((6, 7)) if company else r.choice((1, 2, 2, 3, 3, 4, 5, 8))
                contract = self.add_contract(
                    customer,
                    contract_no,
                    plan,
                    state,
                    since,
                    cycle=r.choice((1, 2, 3, 4)),
                    discount=r.choice((0.0, 0.0, 0.0, 10.0)),
                    sla=2 if company else 1,
                )
                if state not in ("C", "T"):
                    login = f"{name.split()[0].lower()}{contract_no}".encode("ascii", "ignore").decode()
                    self.add_authentication(
                        contract, login, f"{r.getrandbits(40):010x}", online=r.random() < 0.7
                    )
                if state in ("A", "B", "S"):
                    self.add_documents(
                        customer,
                        contract,
                        overdue=2 if state == "B" else int(r.random() < 0.15),
                        months_paid=2,
                    )
                    if state == "A":
                        self.add_equipment(contract, customer)
                        if r.random() < 0.12:
                            self.add_ticket(
                                customer,
                                contract,
                                r.choice(TOPICS[:9]),
                                opened=self.ago(r.randrange(0, 6)),
                                closed=False,
                                technician=r.choice(("tecnico.joao", "tecnico.maria", "tecnico.lucas", None)),
                                os_status=r.choice(("F", "F", "A", "E", "P", "")),
                            )
                if r.random() < 0.3:
                    self.add_ticket(
                        customer,
                        contract,
                        r.choice(TOPICS[:9]),
                        opened=self.ago(r.randrange(7, 200)),
                        closed=True,
                        technician=r.choice(("tecnico.joao", "tecnico.maria", None)),
                        os_status=r.choice(("C", "C", "B", "")),
                    )
                if state == "C":
                    contract["Cancelamento_Motivo"] = r.choice(CANCEL_REASONS)[1]
                    contract["Cancelamento_Concorrencia"] = str(r.choice(COMPETITORS)[0])
            if r.random() < 0.3:
                contact_id += 1
                self.store.insert(
                    "contacts",
                    {
                        "id": contact_id,
                        "Nome": p.person_name(),
                        "CPF": brazil.cpf(r),
                        "Email": "",
                        "Telefone1": p.mobile(),
                        "Telefone2": "",
                        "Telefone3": "",
                        "Aniversario": "",
                        "Tipo": r.choice("GAT"),
                        "Situacao": r.choice("AAAI"),
                        "Cliente": code,
                        "tipo_pessoa": "C",
                        "complemento": None,
                    },
                )

    def finish(self) -> None:
        store, r = self.store, self.rng
        by_customer: dict[int, list[str]] = {}
        for contract in store.rows("contracts"):
            by_customer.setdefault(contract["Cliente_Codigo"], []).append(contract["Situacao_Codigo"])
        for customer in store.rows("customers"):
            customer["Situacao"] = customer_situation(by_customer.get(customer["Codigo"], []))
        for code in range(1, 6):
            address = self.people.address()
            store.insert(
                "markets",
                {
                    **customer_record(
                        9000 + code,
                        "F",
                        brazil.cpf(r),
                        self.people.person_name(),
                        address,
                        mobile=self.people.mobile(),
                        email="",
                        since=self.today,
                        group=1,
                        due_day=10,
                    ),
                    "Codigo": 9000 + code,
                },
            )
        for code in range(1, 5):
            store.insert(
                "suppliers",
                {
                    "Codigo": code,
                    "Tipo": "J",
                    "CNPJ_CNPF": brazil.cnpj(r),
                    "Nome": f"{r.choice(brazil.LAST_NAMES)} "
                    f"{('Telecom', 'Distribuidora', 'Cabos', 'Energia')[code - 1]} S.A.",
                    "Endereco": r.choice(brazil.STREETS),
                    "Numero": r.randrange(10, 2000),
                    "Complemento": "",
                    "Bairro": "Centro",
                    "Cidade": "São Paulo",
                    "UF": "SP",
                    "CEP": "01001000",
                    "Telefone1": self.people.landline(),
                    "Telefone2": "",
                    "TelFax": "",
                    "RG_IE": str(r.randrange(10**11, 10**12)),
                    "Sigla": "",
                    "Inclusao": "2020-01-15",
                    "Usuario": "admin",
                    "Situacao": "A" if code < 4 else "I",
                    "Observacoes": "",
                },
            )
        customers = [c for c in store.rows("customers") if c["Codigo"] > D.company]
        for index, card in enumerate(r.sample(customers, 20), start=1):
            store.insert(
                "stored_cards",
                {
                    "Id": index,
                    "TipoPessoa": "C",
                    "CodigoPessoa": card["Codigo"],
                    "UltimosDigitos": f"{r.randrange(10000):04d}",
                    "Bandeira": r.choice("MVEH"),
                    "TipoCartao": r.choice("CDM"),
                    "CartaoPadrao": "S",
                },
            )
        store.insert(
            "additional_values",
            {
                "Id": 1,
                "Codigo": 1,
                "Tabela": "Clientes",
                "Chave": str(D.customer),
                "Valor": "Portão verde ao lado da padaria",
            },
        )
        store.insert(
            "additional_values",
            {"Id": 2, "Codigo": 2, "Tabela": "Contratos", "Chave": str(D.contract), "Valor": "maria2025wifi"},
        )
        # Failover events: two finished outages and one still open, affecting a handful of customers.
        affected = [str(c["Codigo"]) for c in r.sample(customers, 12)]
        for fid, (host, kind, days, open_) in enumerate(
            (("10.0.2.1", "NAS", 0, True), ("10.0.0.2", "NAS", 3, False), ("link-sp-01", "LINK", 20, False)),
            1,
        ):
            down = self.now - timedelta(days=days, hours=2)
            up = None if open_ else down + timedelta(hours=1, minutes=15)
            store.insert(
                "failover",
                {
                    "Id": fid,
                    "Host": host,
                    "Type": kind,
                    "Server": "radius-01",
                    "AffectedCustomers": ",".join(
                        affected[(fid - 1) * 4 : fid * 4] + ([str(D.customer)] if open_ else [])
                    ),
                    "DownTime": down.strftime("%Y-%m-%d %H:%M:%S"),
                    "UpTime": up.strftime("%Y-%m-%d %H:%M:%S") if up else None,
                    "Status": "O" if open_ else "C",
                    "Source": "A",
                    "Description": f"Queda de {host}",
                    "Duration": 75 if up else None,
                    "Cause": None if open_ else 4,
                    "Solution": "" if open_ else "Equipamento reiniciado",
                },
            )
        # Virtual collector: bandwidth-reduction rule for customers with overdue bills.
        blocked = [c for c in store.rows("contracts") if c["Situacao_Codigo"] == "B"][:6]
        store.insert(
            "reduction_rules",
            {
                "Regra": 1,
                "Prioridade": 1,
                "Atraso_Max": 30,
                "Atraso_Min": 5,
                "contratos": [c["Numero"] for c in blocked],
            },
        )
        store.insert(
            "reduction_rules",
            {"Regra": 2, "Prioridade": 2, "Atraso_Max": 90, "Atraso_Min": 31, "contratos": []},
        )
        # MVNO lines: the demo customer and a few others have a mobile line.
        for index, code in enumerate((D.customer, *(c["Codigo"] for c in customers[:3])), start=1):
            person = store.find("customers", Codigo=code)
            line_contract = store.find("contracts", Cliente_Codigo=code)
            assert person is not None and line_contract is not None  # noqa: S101
            store.insert(
                "mvno_lines",
                {
                    "id": index,
                    "customer_id": code,
                    "contract_id": line_contract["Numero"],
                    "mvno_customer_code": f"MV{code}",
                    "mvno_person_type": "PF" if person["Tipo"] == "F" else "PJ",
                    "mvno_person_name": person["Nome"],
                    "mvno_document_number": person["CNPJ_CNPF"],
                    "insert_date": person["Inclusao"],
                    "mvno_contract_code": f"MC{line_contract['Numero']}",
                    "mvno_plan_code": "CTRL-10GB",
                    "iccid": "8955" + "*" * 12 + f"{index:04d}",
                    "msisdn": person["TelCelular"],
                    "status": "active",
                    "balance": round(r.uniform(0, 30), 2),
                    "recharges": [10, 20, 30],
                },
            )
        # A scheduled trial plan, so temporary_plan_list has something to list.
        store.insert(
            "temporary_plans",
            {
                "id": 1,
                "customer_id": D.company,
                "contract_id": D.company_contracts[0],
                "temporary_plan_id": 7,
                "start_period": f"{(self.today + timedelta(days=5)).isoformat()} 00:00:00",
                "finish_period": f"{(self.today + timedelta(days=12)).isoformat()} 23:59:59",
                "status": "scheduled",
            },
        )


_LOOKUPS = (
    _user_tables,
    _ticket_tables,
    _service_tables,
    _mode_tables,
    _customer_tables,
    _stock_tables,
    _finance_tables,
    _site_tables,
)


def generate(seed: int = DEFAULT_SEED, today: date | None = None) -> Store:
    """The seeded data set; the same seed and the same date always give the same records."""
    builder = _Builder(seed, today or system_clock().date())
    for lookup in _LOOKUPS:
        lookup(builder.store)
    builder.demo()
    builder.random_customers()
    builder.alphanumeric_company()
    builder.finish()
    return builder.store
