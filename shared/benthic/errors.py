"""The refusals: ``ApiError`` (a status, a stable ``code`` and a ``message``), raised by every floor that refuses a
request (trust, play, the services), and every error code the APIs answer, with its status and meaning: the one list
the OpenAPI documents (``benthic.service.apidoc``) and docs/ERRORS.md are checked against.  No web framework here:
``benthic.service.http`` maps a refusal (and whatever else a request raised) to its response.

A route names the codes it can give (see ``benthic.service.apidoc.doc``); a code answered with two statuses
(``operator_only``: 401 without a credential, 403 with another kind) is listed once per status.  Rule violations are
open-ended: every engine names its own rules (``not_your_turn``, ``insufficient_funds``, ...), so a route that decides
a command documents ``RULE`` (any snake_case code, status 422).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class ApiError(Exception):
    """An error answer: HTTP status plus a stable ``code`` and a human ``message``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers


RETRY_AFTER_S = 1


def store_unavailable(what: str = "the store") -> ApiError:
    return ApiError(503, "store_unavailable", f"{what} cannot answer right now; nothing was changed, retry shortly",
                    headers={"Retry-After": str(RETRY_AFTER_S)})



class ErrorCode(NamedTuple):
    status: int
    code: str
    meaning: str


RULE = "<rule>"  # a rule violation named by the engine: any snake_case code, 422

ERROR_CODES: tuple[ErrorCode, ...] = (
    # 400: the request is malformed (nothing was changed)
    ErrorCode(400, "invalid_json", "the body is not valid JSON"),
    ErrorCode(400, "invalid_request", "a field, query or path parameter is missing, of the wrong type or out of "
                                      "range (`details.errors` names it)"),
    ErrorCode(400, "body_too_deep", "the body nests arrays and objects deeper than the limit (32)"),
    ErrorCode(400, "malformed_command", "the command is not a valid command of this game type"),
    ErrorCode(400, "unknown_command_type", "the command's `type` is not a command of this game type"),
    ErrorCode(400, "unknown_bot", "a bot seat names no registered bot"),
    ErrorCode(400, "invalid_bot_level", "a bot seat's level is outside 1..10"),
    ErrorCode(400, "reserved_player_id", "a player id starting with `bot:`: those are the platform's bots"),
    ErrorCode(400, "invalid_webhook_url", "a webhook URL that is not http(s), names no host or a percent-encoded one, "
                                          "carries credentials or a fragment, or is over 2048 characters"),
    ErrorCode(400, "webhook_url_not_public", "a webhook URL on a loopback, private or reserved address, in any "
                                             "spelling (allowed only with BENTHIC_WEBHOOK_ALLOW_PRIVATE)"),
    ErrorCode(400, "cannot_block_self", "a player cannot block themselves"),
    # 401: no credential, or one that cannot be trusted (with WWW-Authenticate)
    ErrorCode(401, "missing_token", "no bearer credential"),
    ErrorCode(401, "invalid_token", "a credential that is malformed or not signed by a trusted key"),
    ErrorCode(401, "token_expired", "an expired credential: get a new one"),
    ErrorCode(401, "token_revoked", "an operator revoked this seat token: get a new one with your JWT"),
    ErrorCode(401, "operator_only", "an operator endpoint called without a credential"),
    # 403: a valid credential that does not allow this
    ErrorCode(403, "wrong_game", "the seat token belongs to another game"),
    ErrorCode(403, "wrong_seat", "the seat token is for another seat of this game"),
    ErrorCode(403, "player_mismatch", "a player acts only as themselves"),
    ErrorCode(403, "player_only", "this endpoint acts for a player: send the player's own JWT"),
    ErrorCode(403, "operator_only", "this endpoint needs the operator token or scope benthic:operator"),
    ErrorCode(403, "not_seated", "the caller holds no seat in this game"),
    ErrorCode(403, "seed_requires_operator", "only an operator may choose a game's seed"),
    ErrorCode(403, "backend_only", "webhooks are registered by a backend (scope benthic:matchmaker) or an operator"),
    # 404
    ErrorCode(404, "game_not_found", "no such game (on the read API: or not projected yet)"),
    ErrorCode(404, "unknown_game_type", "no such game type"),
    ErrorCode(404, "unknown_content_pack", "no such content pack is installed for this game type (`details.installed` "
                                           "lists those that are)"),
    ErrorCode(404, "version_not_found", "a view asked at a version the game has not reached "
                                        "(`details.current_version`)"),
    ErrorCode(404, "not_finished", "the game has no final scores yet"),
    ErrorCode(404, "webhook_not_found", "the player has no webhook"),
    ErrorCode(404, "dead_letter_not_found", "no such entry in the webhook dead-letter stream"),
    ErrorCode(404, "ticket_not_found", "no such matchmaking ticket of the caller (or closed longer ago than "
                                       "BENTHIC_MATCH_KEEP_S)"),
    ErrorCode(404, "invitation_not_found", "no such invitation sent to or by the caller"),
    ErrorCode(404, "not_found", "no such resource (a path parameter of the wrong type)"),
    ErrorCode(405, "method_not_allowed", "the path has no such method (with Allow; any path, not per operation)"),
    # 409: the request is valid, the game's state refuses it now
    ErrorCode(409, "game_finished", "the game is over (or archived): it accepts no more commands or joins"),
    ErrorCode(409, "version_conflict", "`expected_version` is stale (`details.current_version`)"),
    ErrorCode(409, "too_many_conflicts", "the game changed too often while deciding: retry"),
    ErrorCode(409, "seats_open", "the game waits for players: it starts when every seat is taken"),
    ErrorCode(409, "no_open_seat", "every seat of the game is taken"),
    ErrorCode(409, "seat_taken", "the asked seat is taken"),
    ErrorCode(409, "already_seated", "the player already holds a seat in this game"),
    ErrorCode(409, "seat_taken_over", "the house bot plays this seat since its clock ran out: reclaim it first"),
    ErrorCode(409, "seat_resigned", "the seat left the game (resigned or forfeited): the house bot plays it"),
    ErrorCode(409, "seat_not_taken_over", "the seat is played by its player: nothing to reclaim"),
    ErrorCode(409, "undo_not_allowed", "the undo would cross a revealed fact or another seat's move, or the game "
                                       "does not allow it (`details.reason`: `nothing_to_undo`, `reveals_information`, "
                                       "`another_seat_acted`, `undo_off`, `game_over`)"),
    ErrorCode(409, "too_many_open_games", "the player sits in too many unfinished games (`details.limit`)"),
    ErrorCode(409, "too_many_tickets", "the player holds BENTHIC_MATCH_TICKETS_PER_PLAYER open tickets already "
                                       "(`details.limit`)"),
    ErrorCode(409, "ticket_closed", "the ticket is matched, cancelled or expired already (`details.status`, and "
                                    "`details.game_id` for a matched one)"),
    ErrorCode(409, "on_vacation", "the player is on vacation: end it (DELETE /players/me/vacation) to queue again"),
    ErrorCode(409, "already_on_vacation", "the player is on vacation already"),
    ErrorCode(409, "not_on_vacation", "the player is not on vacation"),
    ErrorCode(409, "vacation_budget_exceeded", "more days than the player's vacation budget holds "
                                               "(`details.available_days`)"),
    ErrorCode(409, "invitation_closed", "the invitation started, expired, was declined or cancelled already "
                                        "(`details.status`)"),
    ErrorCode(409, "too_many_blocks", "the player blocks the most players allowed already (`details.limit`)"),
    # 413
    ErrorCode(413, "body_too_large", "the body is over BENTHIC_MAX_BODY_BYTES"),
    # 414, 431: the request's head over its limits (benthic.service.headlimits), HTTP and WebSocket handshakes alike
    ErrorCode(414, "request_line_too_long", "the request's target (path and query) is over 8,000 bytes"),
    ErrorCode(431, "request_headers_too_large", "over 100 header fields, one over 8,190 bytes, or a head over 64 KiB"),
    # 422: well-formed, refused by the game's rules
    ErrorCode(422, "unknown_game_type", "no such game type (POST /games)"),
    ErrorCode(422, "duplicate_player", "one player named for two seats"),
    ErrorCode(422, "creator_not_seated", "a player creating a game must take a seat in it"),
    ErrorCode(422, "no_such_seat", "the game has no such seat"),
    ErrorCode(422, "invalid_option", "an option of the game, or the platform's `clock`/`on_expiry`, is invalid"),
    ErrorCode(422, "unknown_pace", "a matchmaking pace that is not one of the presets (`details.paces`)"),
    ErrorCode(422, "invalid_seats", "a seat count or range outside the game type's seats"),
    ErrorCode(422, "invalid_invitees", "an invitation to oneself, to a bot, to a player twice, or to more players "
                                       "than the table seats"),
    ErrorCode(422, "invitee_blocked", "the inviter blocks one of the invitees (unblock them first)"),
    ErrorCode(422, RULE, "a rule violation or an invalid game setup: the code names the rule (`not_your_turn`, "
                         "`insufficient_funds`, `invalid_option`, `invalid_player_count`, ...), the message cites it"),
    # 429
    ErrorCode(429, "rate_limited", "too many requests (with Retry-After; `details` names the limit)"),
    ErrorCode(500, "internal_error", "a bug (logged with its traceback); nothing was changed; never documented "
                                     "per operation"),
    # 503: try again later; nothing was changed
    ErrorCode(503, "store_unavailable", "Redis unreachable, its pool busy, failing over, or a primary refusing writes "
                                        "(too few replicas: NOREPLICAS) (with Retry-After)"),
    ErrorCode(503, "durability_unconfirmed", "the write may or may not have been applied: its replication was not "
                                             "confirmed in time (BENTHIC_REDIS_ACK_REPLICAS); send it again with the "
                                             "same command id (with Retry-After)"),
    ErrorCode(503, "overloaded", "the service is at its capacity and did not take the request (admission control; "
                                 "nothing was read or changed) (with Retry-After)"),
    ErrorCode(503, "archive_unavailable", "the PostgreSQL archive of finished games unreachable (with Retry-After)"),
    ErrorCode(503, "identity_provider_unavailable", "the identity provider's JWKS cannot be fetched"),
    ErrorCode(503, "too_many_live_clients", "this server holds its maximum of live clients (with Retry-After)"),
    ErrorCode(503, "engine_version_unsupported", "the game was recorded by an engine version this replica "
                                                 "cannot read (docs/UPGRADES.md)"),
    ErrorCode(503, "content_pack_unavailable", "the game's content pack is not installed on this replica"),
)

# The codes of a credential check, by what the route accepts ("status:code" names one status of a code).
JWT_AUTH = ("missing_token", "invalid_token", "token_expired", "identity_provider_unavailable")
PLAYER_AUTH = (*JWT_AUTH, "player_only")
OPERATOR_AUTH = ("operator_only", "invalid_token", "token_expired", "identity_provider_unavailable")
SEAT_AUTH = ("missing_token", "invalid_token", "token_expired", "token_revoked", "wrong_game")
# A route that writes what it acknowledges (an append, a join): its replication is confirmed, or the answer says not.
WRITE = ("durability_unconfirmed",)
# A game the route finds by id (in Redis, else in the archive).
GAME_BY_ID = ("game_not_found", "archive_unavailable")
# A route that folds the game's events: a replica without its engine version or content pack refuses.
FOLD = ("engine_version_unsupported", "content_pack_unavailable")
