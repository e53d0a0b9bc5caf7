"""Authentications, customers and contacts, groups, stock, finance writes and the read-only listings."""

from __future__ import annotations

from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D

from tests.sandbox.conftest import Api, fail2, ok2

AUTH = {
    "customer_id": D.customer,
    "contract_id": D.contract,
    "nas": "10.0.0.1",
    "port": "-1",
    "user": "maria.tv",
    "password": "s3nha",
    "mac": "AA:BB:CC:DD:EE:FF",
    "allow_access_subscriber_center": True,
    "allow_update_password": True,
    "force_password_update": False,
    "status": "A",
}


async def test_authentications(api: Api) -> None:
    created = ok2(await api.v2("authentication_insert", AUTH))
    (row,) = await api.rows("ConsultaAutenticacaoSenha", "Usuario = 'maria.tv'")
    assert row["Id"] == str(created["id"]) and row["Senha"] == "s3nha" and row["NAS"] == "10.0.0.1"
    fail2(await api.v2("authentication_insert", {**AUTH, "user": D.pppoe_login}), 19)
    fail2(await api.v2("authentication_insert", {**AUTH, "user": "x", "mac": "zz"}), 1)
    fail2(await api.v2("authentication_update", {"id": created["id"], "status": "X"}), 12)
    ok2(await api.v2("authentication_update", {"id": created["id"], "password": "nova", "status": "I"}))
    assert (await api.rows("ConsultaAutenticacaoSenha", "Usuario = 'maria.tv'"))[0]["Senha"] == "nova"
    ok2(await api.v2("authentication_delete", {"id": created["id"]}))
    fail2(await api.v2("authentication_delete", {"id": created["id"]}), 9)


async def test_customer_create_change_and_contacts(api: Api) -> None:
    data = {
        "TipoPessoa": "P",
        "CPF": "39053344705",
        "Nome": "Carlos Teste",
        "CodMunicipio": 3550308,
        "UF": "SP",
        "TipoConta": "POS",
        "TelCelular": "11912345678",
        "DiaVencimento": 10,
        "Contatos": {"Contato": [{"Nome": "Ana Teste", "Tipo": "G", "Telefone1": "11955554444"}]},
    }
    created = await api.v1("ClienteCadastro", {"DadosCliente": data})
    assert created["status"] == 1 and set(created["result"]) == {"CodigoCliente", "Mensagem"}
    code = created["result"]["CodigoCliente"]
    (row,) = await api.rows("ConsultaClientes", f"Codigo = {code}")
    assert row["Cidade"] == "São Paulo" and row["TelCelular"] == "11912345678"
    assert [c["Nome"] for c in await api.rows("ConsultaContatos", f"Cliente = {code}")] == ["Ana Teste"]
    missing = await api.v1("ClienteCadastro", {"DadosCliente": {**data, "TipoConta": None}})
    assert missing["erro_code"] == 1 and missing["erro_detail"] == "TipoConta"
    bad_cpf = await api.v1("ClienteCadastro", {"DadosCliente": {**data, "CPF": "12345678900"}})
    assert bad_cpf["erro_code"] == 2 and bad_cpf["erro_detail"] == "CPF"
    bad_day = await api.v1("ClienteCadastro", {"DadosCliente": {**data, "DiaVencimento": 7}})
    assert bad_day["erro_detail"] == "DiaVencimento"
    changed = await api.v1(
        "ClienteAlteracao", {"DadosCliente": {"Codigo": code, "Email": "carlos@example.com"}}
    )
    assert changed["status"] == 1
    unknown = await api.v1("ClienteAlteracao", {"DadosCliente": {"Codigo": 777777, "Nome": "x"}})
    assert unknown["erro_code"] == 4 and unknown["erro_detail"] == "CodigoCliente"
    market = await api.v1("MercadoCadastro", {"DadosMercado": {**data, "Contatos": None}})
    assert "CodigoMercado" in market["result"]
    assert (await api.v1("MercadoAlteracao", {"DadosMercado": {"Codigo": 1}}))[
        "erro_detail"
    ] == "CodigoMercado"

    contact = ok2(
        await api.v2(
            "contact_create",
            {
                "person_type": "C",
                "person_id": D.customer,
                "name": "Filha",
                "type": "G",
                "status": "A",
                "phone_1": "11987650000",
            },
        )
    )
    fail2(
        await api.v2(
            "contact_create",
            {
                "person_type": "C",
                "person_id": D.customer,
                "name": "x",
                "type": "G",
                "status": "A",
                "email": "not-an-email",
            },
        ),
        12,
    )
    ok2(await api.v2("contact_update", {"contact_id": contact["id"], "email": "filha@example.com"}))
    fail2(await api.v2("contact_update", {"contact_id": 99999, "name": "x"}), 9)
    ok2(await api.v2("contact_delete", {"contact_id": contact["id"]}))
    fail2(await api.v2("contact_delete", {"contact_id": contact["id"]}), 9)


async def test_client_groups(api: Api) -> None:
    fail2(await api.v2("client_group_insert", {"name": "VIP"}), 9)
    fail2(await api.v2("client_group_insert", {"name": "VIP", "status": "X"}), 9)
    assert "cadastrado" in ok2(
        await api.v2("client_group_insert", {"name": "VIP", "status": "A", "priority": 5})
    )
    assert {"Codigo": "5", "Nome": "VIP"} in (await api.query("ConsultaGruposCliente"))["result"]
    ok2(await api.v2("client_group_update", {"group_id": 5, "priority": 99}))
    fail2(await api.v2("client_group_update", {"group_id": 55, "name": "x"}), 13)
    fail2(await api.v2("client_group_update", {"group_id": 5, "priority": 100}), 1)


async def test_stock_and_finance_writes(api: Api) -> None:
    lent = ok2(
        await api.v2(
            "equipment_lending",
            {
                "product_id": 2,
                "customer_id": D.customer,
                "contract_id": D.contract,
                "activation_date": "2025-03-10",
                "quantity": 1,
                "serial_number": "SN02000001",
            },
        )
    )
    assert set(lent) == {"equipament_id", "produt_movement_id"}
    fail2(
        await api.v2(
            "equipment_lending",
            {
                "product_id": 2,
                "customer_id": D.customer,
                "contract_id": D.contract,
                "activation_date": "2025-03-10",
                "quantity": 1,
                "serial_number": "SN02000001",
            },
        ),
        15,
    )
    equipment = ok2(
        await api.v2("get_equipment_customer", {"customer_id": D.customer, "equipment_status": "active"})
    )
    assert len(equipment) == 2
    fail2(await api.v2("get_equipment_customer", {"equipment_status": "broken"}), 8)
    product = ok2(await api.v2("inventory_insert", {"code": 3001, "description": "Fonte 12V", "unit_id": 1}))
    assert product["id"] == 5
    fail2(await api.v2("inventory_insert", {"code": 3001, "description": "Fonte 12V"}), 90)

    note: dict[str, Any] = {
        "Cabecalho": {
            "CodigoCliente": D.company,
            "Modelo": 21,
            "DataEmissao": "2025-03-10",
            "TipoUtilizacao": 4,
            "NaturezaOperacao": "Prestação de serviço",
            "Situacao": "N",
        },
        "Itens": {
            "Item": [
                {
                    "Codigo": 1,
                    "Descricao": "Internet",
                    "CFOP": 5307,
                    "Unidade": "UN",
                    "Valor": 349.9,
                    "CodigoClassificacaoItem": 104,
                }
            ]
        },
    }
    assert (await api.v1("NotasFiscaisCadastro", {"DadosNota": {"Nota": [note]}}))["result"] == {
        "QuantidadeNotas": "1"
    }
    early = {**note, "Cabecalho": {**note["Cabecalho"], "DataEmissao": "2025-01-31"}}
    refused = await api.v1("NotasFiscaisCadastro", {"DadosNota": {"Nota": [note, early]}})
    assert refused["erro_code"] == 98 and refused["erro_inf"] == "Nota 2"
    order = {
        "Geral": {"Cliente": D.customer, "TipoCliente": "C", "CicloFat": 3, "Assinatura": "2025-03-10"},
        "Itens": {
            "ItemP": [{"Tipo": "P", "Codigo": 4, "InicioCobranca": "2025-03-10", "AgruparCobranca": "N"}]
        },
    }
    assert (await api.v1("PedidoCadastro", {"DadosPedido": order}))["status"] == 1
    adhesion = {
        "TipoPlano": "P",
        "CodigoPlano": 4,
        "NroParcelas": 1,
        "FormaPagto": "B",
        "Cobranca": "R",
        "Conta": 1,
        "Historico": 3,
        "Banco": 1,
        "Convenio": 2512345,
    }
    assert (await api.v1("PedidoCadastro", {"DadosPedido": {**order, "Adesao": adhesion}}))[
        "erro_code"
    ] == 135
    # As the vendor's own example: payment form and charge left empty (the ISP's defaults), a negative
    # promotional value, installments given.
    example = {
        **order,
        "Adesao": {**adhesion, "FormaPagto": "", "Cobranca": ""},
        "Parcelas": {"Parcela": [{"Descricao": "Parcela 1", "Vencimento": "2025-04-10", "Valor": "50.00"}]},
        "Itens": {"ItemP": [{**order["Itens"]["ItemP"][0], "DescPromoPrazo": 12, "DescPromoValor": -20}]},
    }
    assert (await api.v1("PedidoCadastro", {"DadosPedido": example}))["status"] == 1


async def test_listings(api: Api) -> None:
    for name in (
        "ConsultaGruposSLA",
        "ConsultaComplementoContatos",
        "ConsultaConcorrencia",
        "ConsultaMotivosCancelamento",
        "ConsultaCiclosFaturamento",
        "ConsultaGruposCobranca",
        "ConsultaDadosAdicionais",
        "ConsultaQoS",
        "ConsultaUsuarios",
        "ConsultaCausas",
        "ConsultaFluxos",
        "ConsultaTopicos",
        "ConsultaStatusNAS",
        "ConsultaClientesBloqueados",
        "ConsultaClientesReducao",
        "ConsultaEquipamentosOnline",
        "ConsultaMercados",
        "ConsultaModelosProduto",
        "ConsultaTiposProduto",
        "ConsultaUnidadesProduto",
        "ConsultaCartoesCadastrados",
        "ConsutaFornecedores",
        "ConsultarDadosAdicionais",
        "ConsultaClientesCobranca",
    ):
        assert await api.rows(name), name
    assert (await api.rows("ConsultaCiclosFaturamento"))[0]["Descricao"] == "1 a 31 / 10"
    assert {"IPInterno": "10.0.2.1", "Online": "N"} in await api.rows("ConsultaStatusNAS")
    rules = ok2(await api.v2("virtual_collector_costumer_list", {"regra": [1]}))
    assert rules[0]["Regra"] == 1 and rules[0]["Clientes"]
    fail2(await api.v2("virtual_collector_costumer_list", {"regra": [9]}), 8)
    extra = ok2(await api.v2("consult_additional_data", {"type": ["contracts"]}))
    assert extra[0]["complement_value"] == "maria2025wifi"
    fail2(await api.v2("consult_additional_data", {"type": ["planets"]}), 4)
    fail2(await api.v2("get_online_customer", {"customer_id": 424242}), 3)
    assert ok2(await api.v2("reasons_for_transfer"))[0]["status"] == "A"
    ok2(
        await api.v2(
            "appointment_insert",
            {
                "description": "Reunião",
                "appointment_date": "2025-03-11",
                "appointment_time": "08:00",
                "user": D.technician,
                "recurrence": "no",
                "reminder": "10_minutos",
            },
        )
    )
    fail2(
        await api.v2(
            "appointment_insert",
            {
                "description": "x",
                "appointment_date": "2025-03-11",
                "appointment_time": "08:00",
                "user": "ghost",
                "recurrence": "no",
                "reminder": "none",
            },
        ),
        16,
    )
    agenda = ok2(
        await api.v2("consult_appointments", {"user": D.technician, "appointment_date": "2025-03-11"})
    )
    assert agenda[0]["start_time"] == "2025-03-11 08:00:00"
