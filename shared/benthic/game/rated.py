"""The ``rated`` marker of a game (``RatingKeys.rated``): set by the ratings script in the step that applies a
game's ratings, it records each player's rank and new rating, so the projection reports ``rating.changed`` from it
when it projects the game's ``game_scored`` (the scoring service applies the ratings before appending it)."""

from __future__ import annotations

import msgspec


class PlayerRated(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    rank: int
    rating: float  # openskill's ordinal (mu - 3 sigma), what the leaderboard ranks by
    mu: float
    sigma: float
    previous_rating: float | None = None  # None: the player's first rated game of the type


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(list[PlayerRated])


def encode_marker(players: list[PlayerRated]) -> bytes:
    return _encoder.encode(players)


def decode_marker(raw: bytes | str) -> list[PlayerRated] | None:
    """The players of a marker; None for one written before markers recorded them (``pid:rank,...``)."""
    try:
        return _decoder.decode(raw)
    except msgspec.DecodeError:
        return None
