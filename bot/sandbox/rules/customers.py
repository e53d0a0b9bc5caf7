"""Customers and markets (1.0 ClienteCadastro/Alteracao, MercadoCadastro/Alteracao), contacts,
customer groups and fixed/dynamic IPs (second document, 4.3).

The four 1.0 operations share one field reader: market operations "use the same fields as customer
operations, applied to a market". Required-field refusals are erro_code 1 naming the field, an unknown
record to change is 4 naming CodigoCliente/CodigoMercado, and any other invalid value is the sandbox's
code 2 naming the field.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from bot.sandbox import brazil, codes
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import V1, Context, customer_contract, need, operation
from bot.sandbox.seed import customer_record
from bot.sandbox.store import Record

_PHONE = re.compile(r"\d{10,11}")
_TEXT_FIELDS = {  # 1.0 request field -> customer record field
    "Nome": "Nome",
    "Endereco": "Endereco",
    "Complemento": "Complemento",
    "Bairro": "Bairro",
    "Distrito": "Distrito",
    "CodCobr": "CodCobr",
    "Sigla": "Sigla",
    "CobrEndereco": "Cobr_Endereco",
    "CobrComplemento": "Cobr_Complemento",
    "CobrBairro": "Cobr_Bairro",
    "CobrCidade": "Cobr_Cidade",
    "Observacoes": "Observacoes",
}
_CHOICES = {  # 1.0 request field -> (record field, allowed values)
    "Cobranca": ("Cobranca", ("S", "R", "D", "C")),
    "TipoImpressao": ("TipoImpressao", ("B", "C")),
    "Bloqueavel": ("Bloqueavel", ("S", "N")),
    "Negativavel": ("negativavel", ("S", "N")),
    "AvisoPagamento": ("AvisoPagamento", ("S", "A", "N")),
    "EnviarBoletoEmail": ("enviar_boleto_email", ("S", "N")),
    "TipoConta": ("TipoConta", ("PRE", "POS")),
}
_DIGIT_FIELDS = {
    "CEP": ("CEP", (8,)),
    "CobrCEP": ("Cobr_CEP", (8,)),
    "TelComercial": ("TelComercial", (10, 11)),
    "TelResidencial": ("TelResidencial", (10, 11)),
    "TelCelular": ("TelCelular", (10, 11)),
}
_REGISTERED = {  # 1.0 request field -> (record field, table, key)
    "Banco": ("BcoCobr", "banks", "code"),
    "Grupo": ("Grupo", "customer_groups", "Codigo"),
    "CobrGrupo": ("grupo_cobranca", "collection_groups", "Codigo"),
    "Servidor": ("servidor", "servers", "id"),
}
_UFS = {
    "AC",
    "AL",
    "AP",
    "AM",
    "BA",
    "CE",
    "DF",
    "ES",
    "GO",
    "MA",
    "MT",
    "MS",
    "MG",
    "PA",
    "PB",
    "PR",
    "PE",
    "PI",
    "RJ",
    "RN",
    "RS",
    "RO",
    "RR",
    "SC",
    "SP",
    "SE",
    "TO",
}


def birthday_code(day: date) -> str:
    """ConsultaContatos.Aniversario is documented as DDAAAA: day then year."""
    return day.strftime("%d%Y")


def _person_fields(ctx: Context, p: Params, *, creating: bool, current: Record | None) -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - a rule reads and checks each documented parameter in turn
    """The record changes a create or change request asks for, every value validated."""
    out: dict[str, Any] = {}
    kind = p.choice("TipoPessoa", ("P", "J"), creating)
    kind = kind or ("J" if current is not None and current.get("Tipo") == "J" else "P")
    if creating or p.has("TipoPessoa"):
        out["Tipo"] = "F" if kind == "P" else "J"
    tax_name = "CPF" if kind == "P" else "CNPJ"
    tax = p.digits(tax_name, creating) if kind == "P" else p.cnpj(tax_name, creating)
    if tax is not None:
        if not (brazil.valid_cpf(tax) if kind == "P" else brazil.valid_cnpj(tax)):
            raise p.invalid(tax_name, "dígitos verificadores inválidos")
        out["CNPJ_CNPF"] = tax
    if creating:
        p.req_text("Nome")
    for name, field in _TEXT_FIELDS.items():
        value = p.text(name)
        if value is not None:
            out[field] = value
    for name, (field, choices) in _CHOICES.items():
        value = p.choice(name, choices, creating and name == "TipoConta")
        if value is not None:
            out[field] = value
    for name, (field, lengths) in _DIGIT_FIELDS.items():
        value = p.digits(name, lengths=lengths)
        if value is not None:
            out[field] = value
    for name, (field, table, key) in _REGISTERED.items():
        code = p.integer(name, minimum=0)
        if code is not None:
            if ctx.store.find(table, **{key: code}) is None:
                raise p.invalid(name, "código não cadastrado")
            out[field] = code
    uf = p.text("UF", creating)
    if uf is not None:
        if uf not in _UFS:
            raise p.invalid("UF", "UF inválida")
        out["UF"] = uf
    city = p.integer("CodMunicipio", creating)
    if city is not None:
        if city not in brazil.MUNICIPALITIES:
            raise p.invalid("CodMunicipio", "município não encontrado na tabela nacional")
        city_name, city_uf = brazil.MUNICIPALITIES[city]
        if city_uf != out.get("UF", current.get("UF") if current else city_uf):
            raise p.invalid("UF", f"município {city} pertence a {city_uf}")
        out.update({"municipio": city, "Cidade": city_name})
    cobr_uf = p.text("CobrUF")
    if cobr_uf is not None:
        if cobr_uf not in _UFS:
            raise p.invalid("CobrUF", "UF inválida")
        out["Cobr_UF"] = cobr_uf
    number = p.integer("EndNumero", minimum=0)
    if number is not None:
        out["Numero"] = number
    cobr_number = p.integer("CobrEndNumero", minimum=0)
    if cobr_number is not None:
        out["cobr_numero"] = cobr_number
    if p.has("RG") and kind != "P":
        raise p.invalid("RG", "somente para TipoPessoa P")
    if p.has("IE") and kind != "J":
        raise p.invalid("IE", "somente para TipoPessoa J")
    registry = p.text("RG") or p.text("IE")
    if registry is not None:
        out["RG_IE"] = registry
    born = p.day("Nascimento")
    if born is not None:
        out["Nascimento"] = born.isoformat()
    email = p.email("Email")
    if email is not None:
        out["Email"] = email
    due_day = p.integer("DiaVencimento", minimum=0, maximum=31)
    if due_day is not None:
        if not any(c["Vencimento"] == due_day for c in ctx.store.rows("billing_cycles")):
            raise p.invalid("DiaVencimento", "dia sem ciclo de faturamento cadastrado")
        out["DiaCobr"] = due_day
    protest = p.integer("DiasProtesto", minimum=0)
    if protest is not None:
        out["DiasProtesto"] = protest
    cfop = p.integer("CFOP")
    if cfop is not None and not (5301 <= cfop <= 5307 or 6301 <= cfop <= 6307):
        raise p.invalid("CFOP", "5301 a 5307 ou 6301 a 6307")
    p.integer("TipoAssinante", minimum=1, maximum=6)
    subscriber2 = p.integer("TipoAssinante2")
    if subscriber2 is not None and subscriber2 not in (1, 2, 3, 4, 5, 6, 7, 8, 99):
        raise p.invalid("TipoAssinante2", "01 a 08 ou 99")
    icms = p.integer("ContribuinteICMS")
    if icms is not None and icms not in (1, 2, 9):
        raise p.invalid("ContribuinteICMS", "1, 2 ou 9")
    p.choice("DebitoOperacao", ("001", "003", "013"))
    p.digits("DebitoAgencia")
    p.digits("DebitoConta")
    p.integer("Convenio", minimum=1)
    p.choice("BuscarCoordenadas" if creating else "BuscarCoordenadaS", ("S", "N"))
    coords = p.coordinates("Latitude", "Longitude")
    if coords is not None:
        out["MapsMarkLat"], out["MapsMarkLng"] = coords
    card = p.integer("CobrCartaoId", minimum=1) if not creating else None
    if card is not None and (
        current is None or ctx.store.find("stored_cards", Id=card, CodigoPessoa=current["Codigo"]) is None
    ):
        raise p.invalid("CobrCartaoId", "cartão não cadastrado para o cliente")
    return out


def _contacts(ctx: Context, p: Params, creating: bool) -> list[tuple[int | None, dict[str, Any]]]:
    group = p.group("Contatos")
    if group is None:
        return []
    out = []
    for contact in group.groups("Contato"):
        code = None if creating else contact.integer("Codigo", minimum=1)
        fields: dict[str, Any] = {}
        name = contact.text("Nome", code is None)
        kind = contact.choice("Tipo", ("G", "A", "T"), code is None)
        complement = contact.integer("Complemento", minimum=1)
        if complement is not None and ctx.store.find("contact_complements", Codigo=complement) is None:
            raise contact.invalid("Complemento", "complemento não cadastrado")
        for key, value in (
            ("Nome", name),
            ("Tipo", kind),
            ("Email", contact.email("Email")),
            ("Telefone1", contact.digits("Telefone1")),
            ("Telefone2", contact.digits("Telefone2")),
            ("Telefone3", contact.digits("Telefone3")),
            ("complemento", complement),
            ("Situacao", contact.choice("Situacao", ("A", "I"))),
        ):
            if value is not None:
                fields[key] = value
        birthday = contact.day("Aniversario")
        if birthday is not None:
            fields["Aniversario"] = birthday_code(birthday)
        out.append((code, fields))
    return out


def _additional(ctx: Context, p: Params) -> list[dict[str, Any]]:
    group = p.group("DadosAdicionais")
    if group is None:
        return []
    out = []
    for item in group.groups("DadoAdicional"):
        code = item.id("Codigo")
        if ctx.store.find("additional_data", Codigo=code) is None:
            raise item.invalid("Codigo", "dado adicional não cadastrado")
        out.append({"Id": item.integer("Id", minimum=1), "Codigo": code, "Valor": item.req_text("Conteudo")})
    return out


def _save(ctx: Context, p: Params, table: str, creating: bool) -> dict[str, Any]:  # noqa: PLR0912 - a rule reads and checks each documented parameter in turn
    market = table == "markets"
    code_name = "CodigoMercado" if market else "CodigoCliente"
    current: Record | None = None
    if not creating:
        code = p.integer("Codigo", True, minimum=1)
        current = ctx.store.find(table, Codigo=code)
        if current is None:
            raise Refusal(codes.V1_INVALID_CODE, "Código inválido", detail=code_name)
    changes = _person_fields(ctx, p, creating=creating, current=current)
    contacts = _contacts(ctx, p, creating)
    extras = _additional(ctx, p)
    for contact_code, _fields in contacts:
        if contact_code is not None and ctx.store.find("contacts", id=contact_code) is None:
            raise p.invalid("Contatos.Contato.Codigo", "contato não encontrado")
    if current is None:
        first = 9001 if market else 1001
        code = ctx.store.next_id(table, "Codigo", start=first)
        blank_address = {
            "Endereco": "",
            "Numero": None,
            "Complemento": "",
            "Bairro": "",
            "Cidade": "",
            "Distrito": "",
            "UF": "",
            "CEP": "",
            "municipio": None,
            "MapsMarkLat": None,
            "MapsMarkLng": None,
        }
        record = customer_record(
            code, "F", "", "", blank_address, mobile="", email="", since=ctx.today, group=1, due_day=10
        )
        record.update(
            {"usuario": ctx.key.default_user, "Situacao": "E" if not market else None, "BcoCobr": None}
        )
        if market:
            for field in ("Situacao", "Email", "AvisoPagamento"):
                record.pop(field, None)
        current = ctx.store.insert(table, record)
    current.update(changes)
    for contact_code, fields in contacts:
        if contact_code is not None:
            row = ctx.store.find("contacts", id=contact_code)
            if row is not None:
                row.update(fields)
        else:
            _new_contact(ctx, current["Codigo"], "P" if market else "C", fields)
    for extra in extras:
        existing = (
            ctx.store.find("additional_values", Id=extra["Id"])
            if extra["Id"]
            else ctx.store.find("additional_values", Codigo=extra["Codigo"], Chave=str(current["Codigo"]))
        )
        if existing is not None:
            existing["Valor"] = extra["Valor"]
        else:
            ctx.store.insert(
                "additional_values",
                {
                    "Id": None,
                    "Codigo": extra["Codigo"],
                    "Tabela": "Clientes",
                    "Chave": str(current["Codigo"]),
                    "Valor": extra["Valor"],
                },
                "Id",
            )
    verb = "cadastrado" if creating else "alterado"
    return {
        code_name: current["Codigo"],
        "Mensagem": f"{'Mercado' if market else 'Cliente'} {verb} com sucesso",
    }


@operation("ClienteCadastro", V1, group="DadosCliente")
def cliente_cadastro(ctx: Context, p: Params) -> dict[str, Any]:
    return _save(ctx, p, "customers", creating=True)


@operation("ClienteAlteracao", V1, group="DadosCliente")
def cliente_alteracao(ctx: Context, p: Params) -> dict[str, Any]:
    return _save(ctx, p, "customers", creating=False)


@operation("MercadoCadastro", V1, group="DadosMercado")
def mercado_cadastro(ctx: Context, p: Params) -> dict[str, Any]:
    return _save(ctx, p, "markets", creating=True)


@operation("MercadoAlteracao", V1, group="DadosMercado")
def mercado_alteracao(ctx: Context, p: Params) -> dict[str, Any]:
    return _save(ctx, p, "markets", creating=False)


# ---- contacts (2.0) ----------------------------------------------------------------------------
def _contact_values(ctx: Context, p: Params, creating: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    name = p.text("name", creating)
    document = p.digits("document_number", lengths=(11,))
    if document is not None and not brazil.valid_cpf(document):
        raise p.invalid("document_number", "CPF inválido")
    complement = p.integer("complement", minimum=1)
    if complement is not None and ctx.store.find("contact_complements", Codigo=complement) is None:
        raise p.invalid("complement", "complemento não cadastrado")
    phones = {}
    for index in (1, 2, 3):
        phone = p.text(f"phone_{index}")
        if phone is not None:
            if not _PHONE.fullmatch(phone):
                raise p.invalid(f"phone_{index}", "DDD e número, somente dígitos")
            phones[f"Telefone{index}"] = phone
    birthday = p.day("birthday")
    kind = p.choice("type", ("G", "A", "T"), creating)
    status = p.choice("status", ("A", "I"), creating)
    for key, value in (
        ("Nome", name),
        ("CPF", document),
        ("complemento", complement),
        ("Email", p.email("email")),
        ("Tipo", kind),
        ("Situacao", status),
    ):
        if value is not None:
            out[key] = value
    out.update(phones)
    if birthday is not None:
        out["Aniversario"] = birthday_code(birthday)
    return out


def _new_contact(ctx: Context, owner: int, person_type: str, fields: dict[str, Any]) -> Record:
    """A contact of a customer (``person_type`` "C") or a market ("P"): what ``fields`` leaves out
    is blank, a general ("G") and active ("A") contact."""
    blank = {
        "id": None, "Nome": "", "CPF": "", "Email": "", "Telefone1": "", "Telefone2": "", "Telefone3": "",
        "Aniversario": "", "Tipo": "G", "Situacao": "A", "Cliente": owner, "tipo_pessoa": person_type,
        "complemento": None,
    }
    return ctx.store.insert("contacts", {**blank, **fields}, "id")


@operation("contact_create", missing_code=12, invalid_code=12)
def contact_create(ctx: Context, p: Params) -> dict[str, int]:
    person_type = p.req_choice("person_type", ("C", "P"))
    person = p.id("person_id")
    values = _contact_values(ctx, p, True)
    if ctx.store.find("customers" if person_type == "C" else "markets", Codigo=person) is None:
        raise p.invalid("person_id", "cliente ou mercado não encontrado")
    row = _new_contact(ctx, person, person_type, values)
    return {"id": row["id"]}


@operation("contact_update", missing_code=12, invalid_code=12)
def contact_update(ctx: Context, p: Params) -> str:
    contact_id = p.id("contact_id")
    values = _contact_values(ctx, p, False)
    row = need(ctx.store.find("contacts", id=contact_id), 9, "Nenhum cliente vinculado ao contact_id")
    row.update(values)
    return "Contato alterado com sucesso"


@operation("contact_delete")
def contact_delete(ctx: Context, p: Params) -> str:
    row = need(ctx.store.find("contacts", id=p.id("contact_id")), 9, "Nenhum contato com esse id")
    ctx.store.delete("contacts", row)
    return "Contato excluído com sucesso"


# ---- customer groups (2.0) ---------------------------------------------------------------------
def _group_values(p: Params, creating: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in (
        ("Nome", p.text("name", creating)),
        ("descricao", p.text("description")),
        ("prioridade", p.integer("priority", minimum=0, maximum=99)),
    ):
        if value is not None:
            out[key] = value
    status = p.text("status", creating)
    if status is not None:
        if status not in ("A", "I"):
            raise Refusal(9, "Status obrigatório: A ou I", detail="status")
        out["situacao"] = status
    return out


@operation("client_group_insert", missing_code=9, invalid_code=9)
def client_group_insert(ctx: Context, p: Params) -> str:
    values = _group_values(p, True)
    row = ctx.store.insert(
        "customer_groups", {"Codigo": None, "descricao": "", "prioridade": 0, **values}, "Codigo"
    )
    return f"Grupo {row['Codigo']} cadastrado com sucesso"


@operation("client_group_update")
def client_group_update(ctx: Context, p: Params) -> str:
    group_id = p.id("group_id")
    values = _group_values(p, False)
    row = need(ctx.store.find("customer_groups", Codigo=group_id), 13, "Nenhum grupo com esse id")
    row.update(values)
    return "Grupo alterado com sucesso"


# ---- IPs (2.0) ---------------------------------------------------------------------------------
@operation("ip_insert", string_status=True, failure_result={"ip_id": ""})
def ip_insert(ctx: Context, p: Params) -> dict[str, Any]:
    customer = p.id("customer_id")
    contract = p.id("contract_id")
    v4 = p.req_group("ipv4")
    pool = v4.text("pool_id")
    address = v4.text("ip_address")
    if pool is not None and address is not None:
        raise v4.invalid("pool_id", "pool dinâmico exclui ip_address, mask e gateway")
    if pool is not None and not re.fullmatch(r"\[[^\[\]]+\]", pool):
        raise v4.invalid("pool_id", "no formato [nome_do_pool]")
    if pool is not None and (v4.has("mask") or v4.has("gateway")):
        raise v4.invalid("mask" if v4.has("mask") else "gateway", "não enviar com pool_id")
    mask = v4.text("mask", address is not None)
    gateway = v4.text("gateway", address is not None)
    if pool is None and address is None:
        raise v4.missing("ip_address")
    v6 = p.group("ipv6")
    v6_values: dict[str, Any] = {}
    if v6 is not None:
        wan = v6.text("ip_address_wan")
        wan_pool = v6.text("wan_pool_id")
        if wan is not None and wan_pool is not None:
            raise v6.invalid("wan_pool_id", "exclui ip_address_wan")
        v6_values = {
            "ip_address_wan": wan,
            "wan_pool_id": wan_pool,
            "ip_address_delegated": v6.text("ip_address_delegated", wan is not None),
            "delegated_pool_id": v6.text("delegated_pool_id", wan_pool is not None),
        }
    mac = p.mac("mac")
    remote_mac = p.mac("remote_mac")
    status = p.choice("status", ("A", "I")) or "A"
    customer_contract(ctx, customer, contract, codes.V2_INVALID_FIELD)
    key = pool or address
    if any(row["ipv4"] == key for row in ctx.store.where("ips", contract_id=contract)):
        raise Refusal(16, "IP já existe para este contrato", result={"ip_id": ""})
    row = ctx.store.insert(
        "ips",
        {
            "ip_id": None,
            "customer_id": customer,
            "contract_id": contract,
            "ipv4": key,
            "mask": mask,
            "gateway": gateway,
            "ipv6": v6_values,
            "mac": mac,
            "remote_mac": remote_mac,
            "comments": p.text("comments"),
            "status": status,
        },
        "ip_id",
    )
    return {"ip_id": row["ip_id"]}
