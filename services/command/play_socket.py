"""Play over one WebSocket: `WS /games/{game_id}/play?token=<seat token>`.

The same commands, checks, limits and answers as `POST /games/{id}/commands`, without an HTTP request per
move: the client sends one JSON text frame per command and gets one JSON frame back, in order.

- sent: ``{"command_id", "command", "expected_version"?, "include"?: "legal"}`` (``include`` as the query
  parameter of the POST);
- answered: ``{"status": 200, "command_id", "result": <the POST's answer>}`` or
  ``{"status": <4xx/5xx>, "command_id"?, "error": {"code", "message", "details"}}``, the POST's status and
  error body for the same input.  Nothing is changed by a refused frame, and the connection stays open (a
  frame the service is too busy to take, ``benthic.service.admission``, is answered ``503 overloaded``);
- or sent ``{"undo": true, "command_id", "expected_version"?}``: the seat takes back its last move, answered
  ``{"status": 200, "command_id", "result": <POST /games/{id}/undo's answer>}`` or its refusal (409
  ``undo_not_allowed`` with ``details.reason``);
- or sent ``{"query": "legal"}``: answered ``{"status": 200, "result": <GET /games/{id}/legal's answer>}``
  for the socket's seat (or its refusal), so a client plays a whole game on the socket, its turns included;
- with ``?push=turns``, the socket also gets ``{"status": 200, "push": "turn", "result": <the legal answer>}``
  frames, unasked, when a commit made through another socket of this replica prompts its seat (``turns.py``):
  a client keeps reading frames and tells pushes from answers by ``push``;
- with ``?push=views`` (or ``push=turns,views``), the socket also gets the seat's view on every change, as the
  read API's ``/seats/{seat}/live`` sends it: ``{"status": 200, "push": "view", "result": <the view>}``, and with
  ``&deltas=1`` after the first one ``{"status": 200, "push": "delta", "result": {"version", "base", "patch"}}``
  (an RFC 6902 patch of the view of version ``base``; ``&since=V``: the version the client has, after a
  reconnect), or the full view whenever the server cannot diff against the client's version.  Pushes end with
  the view of the game's last version, as the live stream's do (its ``game_scored``, or 30 s after the finished
  game's view if that does not come: ``benthic.views.live.StreamEnd``), or when the token stops being valid
  (the next command frame is then refused).

The language is chosen once, at the handshake: ``?lang=`` or the handshake's ``Accept-Language``, negotiated as
over HTTP (``benthic.i18n.negotiate``; English by default).  Every label (``query: legal``, ``include: legal``,
turn pushes) and every error ``message`` the socket sends is in that language; codes, details, commands, events
and views are the same in every language.

The seat token (query ``token`` or ``Authorization: Bearer``, since browsers cannot set headers on a WebSocket)
is verified when the socket opens, and its expiry and revocation are checked again with every frame, so an
expired or revoked token stops play at the next frame: the socket is then closed with code 4000 + status
(4401) after the error frame.  Tokens in URLs can end up in proxy logs: prefer the header where the client can
set it.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any, Literal

import msgspec
import structlog
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from benthic.errors import ApiError
from benthic.i18n import DEFAULT_LANGUAGE, negotiate
from benthic.rules import get_engine
from benthic.runtime.telemetry import log
from benthic.service.admission import Admission
from benthic.service.errormessages import localized_message
from benthic.service.http import as_api_error
from benthic.trust.auth import SeatClaim, SeatGate, bearer
from benthic.views.live import Latest, LiveCapacityReached, LiveHub, StreamEnd
from services.command.legal import legal_commands
from services.command.schemas import CommandRequest, UndoRequest
from services.command.service import CommandService
from services.command.turns import TurnPushes


class Frame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A command (``command_id`` and ``command``), an undo (``undo`` and ``command_id``) or a query (``query``),
    one of them."""

    command_id: str | None = None
    command: dict[str, Any] | None = None
    expected_version: int | None = None
    include: str | None = None
    query: Literal["legal"] | None = None
    undo: Literal[True] | None = None


class Answer(msgspec.Struct, frozen=True, omit_defaults=True):
    status: int
    command_id: str | None = None
    result: Any = None
    error: dict[str, Any] | None = None
    push: str | None = None  # "turn": sent unasked (?push=turns)


PUSH_KINDS = ("turns", "views")
VIEW_WAIT_S = 30.0  # a view push waits this long for a change before it checks the token again


_decoder = msgspec.json.Decoder(Frame)
_encoder = msgspec.json.Encoder()
MAX_FRAME_BYTES = 64 * 1024


def _refusal(error: ApiError, command_id: str | None = None, language: str = DEFAULT_LANGUAGE) -> Answer:
    """The error frame: the POST's error body, its message in the socket's language (codes and details
    unchanged)."""
    message = localized_message(error.status, error.code, error.message, language)
    body = {"code": error.code, "message": message, "details": error.details}
    return Answer(error.status, command_id, error=body)


def _decode(raw: str | bytes) -> Frame:
    if len(raw) > MAX_FRAME_BYTES:
        raise ApiError(413, "body_too_large", f"a frame holds at most {MAX_FRAME_BYTES} bytes")
    try:
        frame = _decoder.decode(raw)
    except msgspec.ValidationError as error:
        raise ApiError(400, "invalid_request", str(error)) from None
    except (msgspec.DecodeError, RecursionError) as error:
        raise ApiError(400, "invalid_json", f"the frame is not a JSON command: {error}") from None
    if frame.query is not None:
        if frame.command_id is not None or frame.command is not None or frame.expected_version is not None \
                or frame.include is not None or frame.undo is not None:
            raise ApiError(400, "invalid_request", "a frame is a command, an undo or a query, one of them")
    elif frame.undo is not None:
        if frame.command is not None or frame.include is not None:
            raise ApiError(400, "invalid_request", "an undo frame holds command_id and expected_version only")
        if frame.command_id is None:
            raise ApiError(400, "invalid_request", "Object missing required field `command_id`")
    else:
        for field in ("command_id", "command"):
            if getattr(frame, field) is None:
                raise ApiError(400, "invalid_request", f"Object missing required field `{field}`")
    return frame


@websocket("/games/{game_id:str}/play")
async def play_socket(socket: WebSocket[Any, Any, Any], game_id: FromPath[str]) -> None:
    gate: SeatGate = socket.app.state.gate
    service: CommandService = socket.app.state.service
    limits = socket.app.state.limits
    ip = socket.client.host if socket.client else None
    pushes: TurnPushes = socket.app.state.turn_pushes
    admission: Admission = socket.app.state.admission
    token = socket.query_params.get("token") or bearer(socket.headers.get("authorization"))
    push = socket.query_params.get("push")
    asked = set(push.split(",")) if push is not None else set()
    language = negotiate(socket.headers.get("accept-language"), socket.query_params.get("lang"))
    await socket.accept()
    try:
        if asked - set(PUSH_KINDS):
            raise ApiError(400, "invalid_request", f"push={push!r}: the socket pushes {', '.join(PUSH_KINDS)}")
        deltas, since = _view_options(socket.query_params.get("deltas"), socket.query_params.get("since"))
        claim = await gate.verify(token)
    except Exception as error:  # noqa: BLE001 - every refusal is answered, then the socket closes
        refused = as_api_error(error, "play_socket")
        await socket.send_data(_encoder.encode(_refusal(refused, language=language)).decode())
        await socket.close(code=4000 + refused.status, reason=refused.code)
        return

    async def send(text: str) -> None:
        await socket.send_data(text)

    views: asyncio.Task[None] | None = None
    if claim.game_id == game_id:  # a token of another game is refused frame by frame
        if "turns" in asked:
            pushes.add(game_id, claim.seat, send, language)
        if "views" in asked:
            hub: LiveHub = socket.app.state.hub
            views = asyncio.create_task(_push_views(hub, gate, claim, send, deltas, since, language))
    with structlog.contextvars.bound_contextvars(actor=claim.player_id, actor_kind="player"):
        try:
            while True:
                raw = await socket.receive_data("text")
                shed = await admission.enter()  # a frame is admitted like a request
                if shed is not None:
                    answer, close = _refusal(admission.refusal(shed), language=language), False
                else:
                    admitted = time.perf_counter()
                    try:
                        answer, close = await _answer(service, gate, limits, ip, claim, game_id, raw, pushes,
                                                      language)
                    finally:
                        admission.leave(time.perf_counter() - admitted)
                await send(_encoder.encode(answer).decode())
                if close:
                    await socket.close(code=4000 + answer.status, reason=(answer.error or {}).get("code", ""))
                    return
        except WebSocketDisconnect:
            return
        finally:
            pushes.remove(game_id, claim.seat, send)
            if views is not None:
                views.cancel()


def _view_options(deltas: str | None, since: str | None) -> tuple[bool, int | None]:
    """``?deltas=`` and ``?since=`` of the view pushes, checked as the read API's query parameters are."""
    if deltas not in (None, "0", "1", "true", "false"):
        raise ApiError(400, "invalid_request", f"deltas={deltas!r}: 1 or 0")
    if since is not None and not (since.isascii() and since.isdigit()):
        raise ApiError(400, "invalid_request", f"since={since!r}: the version the client has, an integer >= 0")
    return deltas in ("1", "true"), int(since) if since is not None and deltas in ("1", "true") else None


def _view_push(is_delta: bool, data: bytes) -> str:
    return (b'{"status":200,"push":"%s","result":%s}' % (b"delta" if is_delta else b"view", data)).decode()


async def _push_views(hub: LiveHub, gate: SeatGate, claim: SeatClaim, send: Any, deltas: bool,
                      since: int | None, language: str = DEFAULT_LANGUAGE) -> None:
    """The seat's view on every change, as the read API's live stream sends it (one hub per process: the same
    bytes and patches for every socket of a view), until the game's last version or the token's end."""
    game_id, seat = claim.game_id, claim.seat
    try:
        client = hub.open(game_id, seat, stream=True)
    except LiveCapacityReached:
        refused = ApiError(503, "too_many_live_clients", "this server holds its maximum of live clients")
        await send(_encoder.encode(_refusal(refused, language=language)).decode())
        return
    has = since
    end = StreamEnd(hub, game_id)
    sent: Latest | None = None
    try:
        latest = await hub.current(game_id, seat)
        while True:
            if latest is not None:
                await gate.still_valid(claim)
                await send(_view_push(*hub.frame_for(game_id, seat, has, latest)) if deltas
                           else _view_push(False, latest[1]))
                has, sent = latest[0], latest
            left = math.inf if sent is None else await end.wait_after(sent)
            if left is None:
                return
            try:
                newer = await client.next(min(left, VIEW_WAIT_S))
            except TimeoutError:
                await gate.still_valid(claim)
                newer = None
            if client.dropped:  # it fell behind: start again from the newest view, a delta if the hub can
                hub.release(client)
                client = hub.open(game_id, seat, stream=True)
                newer = await hub.current(game_id, seat)
            elif newer is not None and deltas:
                newer = client.newest(newer)
            latest = newer if newer is not None and (has is None or newer[0] > has) else None
    except asyncio.CancelledError:
        raise
    except Exception as error:  # noqa: BLE001 - a closed socket, a token no longer valid: no more pushes
        log().info("view_push_ended", game_id=game_id, seat=seat, reason=repr(error))
    finally:
        hub.release(client)


PUSH_SEND_TIMEOUT_S = 0.5  # a socket that cannot take a push this fast (its client does not read) gets no more


async def _push_turns(service: CommandService, pushes: TurnPushes, game_id: str, seat: int, version: int) -> None:
    """Push the new legal commands to the other prompted seats' sockets (from the state the commit produced),
    before the mover's answer goes out.  Never fails the mover's command: a push is a shortcut."""
    others = pushes.others(game_id, seat)
    if not others:
        return
    try:
        folded = service.play.cached(game_id)
        if folded is None or folded.version != version:
            return  # another commit came in between: the clients ask
        engine = get_engine(await service.game_type(game_id))
        prompt = engine.prompt(folded.state)
        if prompt is None:
            return
        for other, (send, language) in others:
            if other not in prompt.seats:
                continue
            legal = legal_commands(engine, game_id, other, folded, language=language)
            if not legal.commands:
                continue
            try:
                async with asyncio.timeout(PUSH_SEND_TIMEOUT_S):
                    await send(_encoder.encode(Answer(200, result=legal, push="turn")).decode())
            except TimeoutError:  # its client does not read: it gets no more pushes, and asks
                pushes.remove(game_id, other, send)
                log().warning("turn_push_dropped", game_id=game_id, seat=other)
    except Exception as error:  # noqa: BLE001 - a closing socket, or a bug: the clients ask when none comes
        log().warning("turn_push_failed", game_id=game_id, version=version, error=repr(error))


async def _answer(
    service: CommandService, gate: SeatGate, limits: Any, ip: str | None, claim: SeatClaim, game_id: str,
    raw: str | bytes, pushes: TurnPushes, language: str = DEFAULT_LANGUAGE,
) -> tuple[Answer, bool]:
    """One frame's answer in the socket's ``language`` (labels, error messages), and whether the socket must
    close (its token no longer holds)."""
    command_id = None
    try:
        await gate.still_valid(claim)
    except Exception as error:  # noqa: BLE001
        refused = as_api_error(error, "play_socket")
        return _refusal(refused, language=language), refused.status == 401
    try:
        frame = _decode(raw)
        if frame.query == "legal":
            return Answer(200, result=await service.legal(game_id, claim, language)), False
        command_id = frame.command_id
        await limits.hit("command", claim.player_id, ip)
        if frame.undo is not None:
            assert frame.command_id is not None  # checked by _decode
            undone = await service.undo(game_id, claim, UndoRequest(frame.command_id, frame.expected_version))
            return Answer(200, command_id, result=undone), False
        assert frame.command_id is not None and frame.command is not None  # checked by _decode
        request = CommandRequest(frame.command_id, frame.command, frame.expected_version)
        accepted = await service.command(game_id, claim, request, include_legal=frame.include == "legal",
                                         language=language)
        if not accepted.duplicate:
            await _push_turns(service, pushes, game_id, claim.seat, accepted.last_version)
        return Answer(200, command_id, result=accepted), False
    except Exception as error:  # noqa: BLE001 - the POST's error answer, as a frame
        return _refusal(as_api_error(error, "play_socket"), command_id, language), False
