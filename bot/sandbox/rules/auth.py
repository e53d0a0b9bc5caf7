"""Subscriber authentications (PPPoE/hotspot logins): insert, update, delete (second document, 4.2)."""

from __future__ import annotations

from typing import Any

from bot.sandbox import codes
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, customer_contract, need, operation

VIRTUAL_NAS = ("-1", "-2", "-3")  # all, subscriber center, learn
VIRTUAL_PORTS = ("-1", "-3")  # all, learn


def _check_nas(ctx: Context, p: Params) -> None:
    nas = p.text("nas")
    if nas is not None and nas not in VIRTUAL_NAS and ctx.store.find("nas", IPInterno=nas) is None:
        raise p.invalid("nas", "NAS não cadastrado (IP interno, -1, -2 ou -3)")


def _flags(p: Params, required: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("allow_access_subscriber_center", "allow_update_password", "force_password_update"):
        value = p.boolean(name, required)
        if value is not None:
            out[name] = value
    return out


@operation("authentication_insert")
def authentication_insert(ctx: Context, p: Params) -> dict[str, int]:
    customer = p.id("customer_id")
    contract = p.id("contract_id")
    nas = p.req_text("nas")
    port = p.req_text("port")
    user = p.req_text("user")
    password = p.text("password")
    mac = p.mac("mac")
    flags = _flags(p, True)
    profile = p.integer("profile_id", minimum=1)
    comments = p.text("comments")
    status = p.req_choice("status", ("A", "I"))
    _check_nas(ctx, p)
    customer_contract(ctx, customer, contract, codes.V2_INVALID_FIELD)
    if ctx.store.find("authentications", Usuario=user) is not None:
        raise Refusal(19, "Usuário já cadastrado em um cliente")
    row = ctx.store.insert(
        "authentications",
        {
            "Id": None,
            "Cliente": customer,
            "Contrato": contract,
            "NAS": nas,
            "Porta": port,
            "Usuario": user,
            "Senha": password or "",
            "MAC": mac or "",
            "Observacao": comments or "",
            "status": status,
            "profile_id": profile,
            **flags,
        },
        "Id",
    )
    return {"id": row["Id"]}


@operation("authentication_update", missing_code=12, invalid_code=12)
def authentication_update(ctx: Context, p: Params) -> str:
    auth_id = p.id("id")
    changes: dict[str, Any] = dict(_flags(p, False))
    contract = p.integer("contract_id", minimum=1)
    _check_nas(ctx, p)
    for name, field in (("nas", "NAS"), ("port", "Porta"), ("password", "Senha"), ("comments", "Observacao")):
        value = p.text(name)
        if value is not None:
            changes[field] = value
    mac = p.mac("mac")
    if mac is not None:
        changes["MAC"] = mac
    profile = p.integer("profile_id", minimum=1)
    if profile is not None:
        changes["profile_id"] = profile
    status = p.choice("status", ("A", "I"))
    if status is not None:
        changes["status"] = status
    row = need(ctx.store.find("authentications", Id=auth_id), 12, "Autenticação não encontrada", detail="id")
    if contract is not None:
        customer_contract(ctx, row["Cliente"], contract, 12)
        changes["Contrato"] = contract
    row.update(changes)
    if row["status"] == "I":
        for session in list(ctx.store.where("sessions", authentication_username=row["Usuario"])):
            ctx.store.delete("sessions", session)
    return "Autenticação alterada com sucesso"


@operation("authentication_delete")
def authentication_delete(ctx: Context, p: Params) -> str:
    row = need(ctx.store.find("authentications", Id=p.id("id")), 9, "Autenticação não encontrada")
    ctx.store.delete("authentications", row)
    for session in list(ctx.store.where("sessions", authentication_username=row["Usuario"])):
        ctx.store.delete("sessions", session)
    return "Autenticação excluída com sucesso"
