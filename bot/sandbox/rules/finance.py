"""Financial 1.0 operations: the digitable line of a bill slip, invoices and standalone orders.

The updated line (``BoletoAtualizado = S``) of an overdue slip moves its due date to today and its
amount to what paying today costs: the original plus fine and interest (``billing.due_on``), the
amount the finance group calls ``value_up`` ("amount due today: original + interest + fine −
discount", third document, 1.1), the amount of the slip's PIX code and of ``get_barcode`` for a new
due date. The first document says only "with the updated due date"; a slip re-issued for today that
left interest and fine out would make the bank charge less than the PIX for the same bill, and
nothing in the vendor's documents says interest moves to a later bill.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from bot.sandbox import codes
from bot.sandbox.brazil import moved_line
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import V1, Context, operation
from bot.sandbox.rules.billing import due_on
from bot.sandbox.store import Record


@operation("ConsultaLinhaDigitavelBoleto", V1, group="DadosLinhaDigitavelEntrada", writes=False)
def linha_digitavel(ctx: Context, p: Params) -> list[dict[str, str]]:
    updated = p.choice("BoletoAtualizado", ("S", "N"))
    account = p.integer("Conta")
    due = p.day("Vencimento")
    number = p.integer("Documento")
    origin = p.choice("Origem", ("FAT", "SER", "ADE", "VEN", "OUT"))
    kind = p.choice("Tipo", ("C", "F", "M"))
    person = p.integer("CliFor", True)
    bank = p.integer("Banco")

    def keep(doc: Record) -> bool:
        return (
            not doc.get("DataBaixa")
            and not doc.get("estornado")
            and doc["CodigoPessoa"] == person
            and (kind is None or doc["Tipo"] == kind)
            and (account is None or doc["Conta"] == account)
            and (due is None or doc["DataVencimento"] == due.isoformat())
            and (number is None or doc["Documento"] == number)
            and (origin is None or doc["Origem"] == origin)
            and (bank is None or doc["Banco"] == bank)
            and bool(doc.get("linha_digitavel"))
        )

    found = list(ctx.store.where("documents", keep))
    if not found:
        raise Refusal(codes.V1_NOT_FOUND, "Documento não encontrado")
    out = []
    for doc in found:
        line = doc["linha_digitavel"]
        if updated == "S" and doc["DataVencimento"] < ctx.today.isoformat():
            # Due today, for what paying today costs (see the module's docstring).
            line = moved_line(line, ctx.today, round(due_on(doc, ctx.today, ctx.settings).total * 100))
        out.append({"LinhaDigitavel": line})
    return out


@operation("NotasFiscaisCadastro", V1, group="DadosNota")
def notas_fiscais(ctx: Context, p: Params) -> dict[str, Any]:
    notes = p.groups("Nota", True)
    earliest = date(ctx.today.year, ctx.today.month, 1)
    stored = []
    for index, note in enumerate(notes, start=1):
        head = note.req_group("Cabecalho")
        customer = head.integer("CodigoCliente", True, minimum=1)
        model = head.integer("Modelo", True)
        issued = head.req_date("DataEmissao")
        head.integer("TipoUtilizacao", True, minimum=1, maximum=6)
        head.req_text("NaturezaOperacao")
        head.text("InformacoesAdicionais")
        head.req_choice("Situacao", ("N", "C"))
        if model not in (21, 22):
            raise head.invalid("Modelo", "21 ou 22")
        if ctx.store.find("customers", Codigo=customer) is None:
            raise Refusal(
                codes.V1_INVALID_CODE, "Código inválido", detail="CodigoCliente", inf=f"Nota {index}"
            )
        items = note.req_group("Itens").groups("Item", True)
        for item in items:
            item.integer("Codigo", True)
            item.req_text("Descricao")
            item.integer("CFOP", True)
            item.req_text("Unidade")
            item.decimal("Valor", True, minimum=0, maximum=9999999999999.99)
            item.decimal("ICMSValorBaseCalculo", minimum=0, maximum=999.99)
            item.decimal("ICMSValorAliquota", minimum=0, maximum=999.99)
            item.integer("ICMSCodigoReducaoBaseCalculo")
            item.integer("CodigoClassificacaoItem", True)
        if issued < earliest:
            raise Refusal(98, "Data de emissão menor que a permitida", inf=f"Nota {index}")
        stored.append(
            {
                "id": None,
                "cliente": customer,
                "modelo": model,
                "emissao": issued.isoformat(),
                "itens": len(items),
            }
        )
    for row in stored:
        ctx.store.insert("invoices", row, "id")
    return {"QuantidadeNotas": len(stored)}


def _address(p: Params, name: str) -> None:
    group = p.group(name)
    if group is not None:
        for field in ("Endereco", "Bairro", "UF"):
            group.req_text(field)
        for field in ("Numero", "CodMunicipio", "CEP"):
            group.integer(field, True)


@operation("PedidoCadastro", V1, group="DadosPedido")
def pedido_cadastro(ctx: Context, p: Params) -> dict[str, Any]:
    general = p.req_group("Geral")
    client = general.integer("Cliente", True, minimum=1)
    client_type = general.req_choice("TipoCliente", ("C", "M"))
    ticket = general.integer("Atendimento", minimum=1)
    cycle = general.integer("CicloFat", True, minimum=1)
    general.req_date("Assinatura")
    user = general.text("Usuario")
    if ctx.store.find("customers" if client_type == "C" else "markets", Codigo=client) is None:
        raise Refusal(codes.V1_INVALID_CODE, "Código inválido", detail="Cliente")
    if ticket is not None and ctx.store.find("tickets", Numero=ticket) is None:
        raise general.invalid("Atendimento", "atendimento não encontrado")
    if ctx.store.find("billing_cycles", id=cycle) is None:
        raise general.invalid("CicloFat", "ciclo de faturamento não encontrado")
    if user is not None and ctx.user(user) is None:
        raise general.invalid("Usuario", "usuário não encontrado")
    _address(p, "EnderecoInstalacao")
    _address(p, "EnderecoCobranca")
    installments = p.group("Parcelas")
    entries = installments.groups("Parcela") if installments is not None else []
    for entry in entries:
        entry.req_text("Descricao")
        entry.req_date("Vencimento")
        entry.decimal("Valor", True, positive=True)
    adhesion = p.group("Adesao")
    if adhesion is not None:
        adhesion.req_choice("TipoPlano", ("P", "O"))
        adhesion.integer("CodigoPlano", True)
        adhesion.integer("NroParcelas", True, minimum=1)
        # Required by the spec, sent as "" in the vendor's own example: the ISP's defaults apply.
        adhesion.choice("FormaPagto", ("B", "P"))
        adhesion.choice("Cobranca", ("S", "R"))
        for field in ("Conta", "Historico", "Banco", "Convenio"):
            adhesion.integer(field, True)
        if not entries:
            raise Refusal(135, "Adesão sem parcela informada")
    items = p.req_group("Itens").groups("ItemP", True)
    for item in items:
        kind = item.req_choice("Tipo", ("P", "O"))
        code = item.integer("Codigo", True)
        if ctx.store.find("plans" if kind == "P" else "packages", Codigo=code) is None:
            raise item.invalid("Codigo", "plano ou pacote não encontrado")
        item.req_date("InicioCobranca")
        group = item.req_text("AgruparCobranca")
        if group not in ("S", "N") and not (group.isdecimal() and 1 <= int(group) <= 20):
            raise item.invalid("AgruparCobranca", "S, N ou 1 a 20")
        for field in ("DescontoAdesao", "DescontoContrato"):
            item.decimal(field, minimum=0)
        item.decimal("DescPromoValor")  # the vendor's own example sends -20
    row = ctx.store.insert(
        "orders",
        {
            "NumeroPedido": None,
            "cliente": client,
            "tipo": client_type,
            "itens": len(items),
            "usuario": ctx.user_name(user),
        },
        "NumeroPedido",
    )
    return {"NumeroPedido": row["NumeroPedido"], "Mensagem": "Pedido cadastrado com sucesso"}
