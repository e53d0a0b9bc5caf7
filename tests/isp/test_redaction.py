"""The key and every password stay out of logs, exception texts and reprs."""

from __future__ import annotations

import logging

import httpx
import pytest
from bot.isp import IspApiError, IspClient, IspError, IspSettings
from bot.isp.catalog import OPERATIONS

from tests.isp.samples_v1 import SAMPLES as V1
from tests.isp.samples_v2 import SAMPLES as V2
from tests.isp.standin import KEY, StandIn, v1_fail, v1_ok, v2_fail

PASSWORD = "s3nh@-Secreta!"


def test_settings_repr_hides_the_key() -> None:
    settings = IspSettings(base_url="https://erp.example.net", key=KEY)
    assert KEY not in repr(settings) and KEY not in str(settings)


def test_password_fields_are_hidden_in_requests() -> None:
    for name in ("authentication_insert", "authentication_update"):
        model = OPERATIONS[name].request_model
        assert model is not None
        data = V2[name].request.model_dump() | {"password": PASSWORD}
        request = model.model_validate(data)
        assert PASSWORD not in repr(request) and PASSWORD not in str(request)
        assert request.to_payload()["password"] == PASSWORD  # still sent to the ISP


async def test_senha_from_consulta_autenticacao_senha_is_hidden(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaAutenticacaoSenha", v1_ok([{"Id": "1", "Usuario": "joao", "Senha": PASSWORD}]))
    (auth,) = await client.ConsultaAutenticacaoSenha()
    assert PASSWORD not in repr(auth) and PASSWORD not in str(auth)
    assert auth.Senha is not None and auth.Senha.get_secret_value() == PASSWORD


async def test_nothing_secret_reaches_logs_or_errors(standin: StandIn, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    standin.answer("ConsultaAutenticacaoSenha", v1_ok([{"Id": "1", "Senha": PASSWORD, "Data": "x"}]))
    standin.answer("AtendimentoCadastro", v1_fail(97, "Erro de integração", "Chave inválida"))
    standin.answer("authentication_insert", v2_fail(19, "Usuário já cadastrado"))
    standin.fail_with("ConsultaTopicos", httpx.ConnectError(f"refused {KEY}"))
    errors: list[IspError] = []
    async with standin.client(retries=0) as client:
        await client.ConsultaAutenticacaoSenha()
        request = OPERATIONS["authentication_insert"].request_model.model_validate(  # type: ignore[union-attr]
            V2["authentication_insert"].request.model_dump() | {"password": PASSWORD})
        for coro in (client.call(OPERATIONS["AtendimentoCadastro"], V1["AtendimentoCadastro"].request),
                     client.authentication_insert(request), client.ConsultaTopicos()):
            try:
                await coro
            except IspError as exc:
                errors.append(exc)
    assert len(errors) == 3 and isinstance(errors[0], IspApiError)
    texts = [caplog.text, *(str(e) for e in errors), *(repr(e) for e in errors)]
    for text in texts:
        assert KEY not in text
        assert PASSWORD not in text
