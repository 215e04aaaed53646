"""The matchmaker's pairing (services/matchmaker/pairing.py), pure: who may sit together (class, windows that widen
with the waves missed, blocks, never one player twice), tables of 2, 3 and 4 of similar rating, priority for the
tickets that waited longest; and the matchmaker's folds (the pool, a player's vacation budget)."""

from __future__ import annotations

import random
import statistics

import pytest

from services.matchmaker import events as ev
from services.matchmaker.pairing import Candidate, Pairing, Params, game_id_of, match_id, seat_order
from services.matchmaker.player import DAY_MS, MONTH_MS, PlayerState, VacationPolicy
from services.matchmaker.pool import CANCELLED, MATCHED, WAITING, Pool

GROUP = ("nautilus", "{}", "daily", True)


def cand(ticket: str, rating: float, player: str | None = None, misses: int = 0, seats: tuple[int, int] = (2, 2),
         group: tuple[object, ...] = GROUP, window: float | None = None) -> Candidate:
    return Candidate(ticket, player or f"p-{ticket}", rating, misses, seats[0], seats[1], group, window)


def no_blocks(a: str, b: str) -> bool:
    return False


def test_pairs_are_of_close_ratings() -> None:
    tables = Pairing(Params(), no_blocks).tables([cand("a", 10), cand("b", 30), cand("c", 11), cand("d", 31)])
    assert sorted(sorted(c.ticket_id for c in t) for t in tables) == [["a", "c"], ["b", "d"]]


def test_the_window_widens_with_the_waves_missed() -> None:
    params = Params(window_base=3, window_growth=2, window_max=20)
    far = [cand("a", 10), cand("b", 18)]
    assert Pairing(params, no_blocks).tables(far) == []
    waited = [cand("a", 10, misses=3), cand("b", 18, misses=3)]  # 3 + 2 * 3 = 9 >= 8
    assert len(Pairing(params, no_blocks).tables(waited)) == 1
    own = [cand("a", 10, misses=9, window=1.0), cand("b", 18, misses=9)]  # a's own window: never widened
    assert Pairing(params, no_blocks).tables(own) == []


def test_a_block_either_way_makes_a_pairing_impossible() -> None:
    blocked = {frozenset(("p-a", "p-b"))}
    pairing = Pairing(Params(), lambda x, y: frozenset((x, y)) in blocked)
    tables = pairing.tables([cand("a", 10), cand("b", 10.5), cand("c", 11)])
    assert [sorted(c.ticket_id for c in t) for t in tables] in ([["a", "c"]], [["b", "c"]])


def test_never_one_player_twice_at_a_table() -> None:
    tables = Pairing(Params(), no_blocks).tables([cand("a", 10, "same"), cand("b", 10, "same")])
    assert tables == []


def test_only_one_class_at_a_table() -> None:
    other = ("nautilus", "{}", "live", True)
    assert Pairing(Params(), no_blocks).tables([cand("a", 10), cand("b", 10, group=other)]) == []


def test_the_ticket_that_waited_longest_gets_the_seat() -> None:
    for _ in range(5):
        tables = Pairing(Params(), no_blocks).tables([cand("new", 10.0), cand("old", 10.4, misses=4),
                                                      cand("x", 10.2)])
        assert {c.ticket_id for c in tables[0]} == {"old", "x"}


@pytest.mark.parametrize("seats", [3, 4])
def test_tables_of_three_and_four_group_similar_ratings(seats: int) -> None:
    rng = random.Random(seats)
    ratings = [rng.gauss(20, 6) for _ in range(seats * 30)]
    candidates = [cand(f"t{i}", r, seats=(seats, seats)) for i, r in enumerate(ratings)]
    tables = Pairing(Params(window_base=6, window_max=6), no_blocks).tables(candidates)
    assert len(tables) >= 25
    seated = [c.ticket_id for t in tables for c in t]
    assert len(seated) == len(set(seated))
    assert all(len(t) == seats for t in tables)
    spreads = [max(c.rating for c in t) - min(c.rating for c in t) for t in tables]
    assert max(spreads) <= 6 and statistics.median(spreads) < 2.0


def test_a_ticket_for_a_range_sits_at_the_largest_table_filled() -> None:
    candidates = [cand(f"t{i}", 10 + i / 10, seats=(2, 4)) for i in range(4)] + [cand("two", 10, seats=(2, 2))]
    tables = Pairing(Params(), no_blocks).tables(candidates)
    assert sorted(len(t) for t in tables) == [4]


def test_ids_are_derived_from_the_tickets() -> None:
    assert match_id(["b", "a"]) == match_id(["a", "b"]) != match_id(["a", "c"])
    mid = match_id(["a", "b"])
    assert game_id_of(mid, "nautilus") == game_id_of(mid, "nautilus")
    assert game_id_of(mid, "nautilus").startswith("na_") and len(game_id_of(mid, "nautilus")) == 19
    assert seat_order(mid, ["a", "b"]) == seat_order(mid, ["b", "a"])


def opened(ticket: str, player: str, at: int = 1000) -> ev.TicketOpened:
    return ev.TicketOpened(at=at, ticket_id=ticket, player_id=player, name=player, game_type="nautilus",
                           seats_min=2, seats_max=2, options={}, rated=True, pace="daily", rating=0.0, window=None,
                           expires_at=at + 10_000)


def test_the_pool_folds_tickets_matches_and_misses() -> None:
    pool = Pool()
    pool.apply_all(1, [opened("t1", "a")])
    pool.apply_all(2, [opened("t2", "b")])
    pool.apply_all(3, [ev.WaveRan(at=2000, wave=1, waiting=2, matched=0)])
    assert pool.misses(pool.tickets["t1"]) == 1 and pool.position(pool.tickets["t2"]) == 2
    made = ev.MatchMade(at=3000, match_id="m", game_id="na_x", game_type="nautilus", options={}, rated=True,
                        pace="daily", players=["b", "a"], names=["b", "a"], tickets=["t2", "t1"], wave=2)
    pool.apply_all(4, [made])
    assert pool.tickets["t1"].status == MATCHED and pool.tickets["t1"].seat == 1 and not pool.waiting
    assert list(pool.pending) == ["m"] and pool.open_tickets("a")
    pool.apply_all(5, [ev.MatchSeated(at=3100, match_id="m", game_id="na_x", version=1)])
    pool.apply_all(6, [ev.Announced(at=3200, matches=["m"])])
    assert not pool.pending and not pool.open_tickets("a") and pool.tickets["t1"].seated
    pool.apply_all(7, [opened("t3", "c", at=4000), ev.TicketCancelled(at=4001, ticket_id="t3")])
    assert pool.tickets["t3"].status == CANCELLED


def test_a_failed_match_puts_its_tickets_back() -> None:
    pool = Pool()
    pool.apply_all(2, [opened("t1", "a"), opened("t2", "b")])
    pool.apply_all(3, [ev.MatchMade(at=3000, match_id="m", game_id="na_x", game_type="nautilus", options={},
                                    rated=True, pace="daily", players=["a", "b"], names=["a", "b"],
                                    tickets=["t1", "t2"])])
    pool.apply_all(4, [ev.MatchFailed(at=3001, match_id="m", reason="invalid_option")])
    assert pool.tickets["t1"].status == WAITING and set(pool.waiting) == {"t1", "t2"}


def test_closed_tickets_leave_the_fold_after_keep() -> None:
    pool = Pool(keep_ms=1000)
    pool.apply_all(2, [opened("t1", "a"), ev.TicketCancelled(at=1500, ticket_id="t1")])
    pool.apply_all(3, [opened("t2", "b", at=5000)])
    assert "t1" not in pool.tickets and pool.player_tickets("a") == []


def test_the_vacation_budget_follows_the_policy() -> None:
    policy = VacationPolicy(initial_days=10, days_per_month=3, cap_days=12, min_charge_days=2)
    state = PlayerState(policy)
    assert state.available(0) == 10
    t0 = 1_000_000
    state.apply_all(1, [ev.VacationStarted(at=t0, number=1, days=5, until=t0 + 5 * DAY_MS, games=[])])
    assert state.on_vacation(t0 + DAY_MS) and state.available(t0 + DAY_MS) == 0
    # back after 2 hours: charged the minimum, 2 days
    charge = policy.charge(t0, t0 + 7_200_000, 5)
    assert charge == 2
    state.apply_all(2, [ev.VacationEnded(at=t0 + 7_200_000, number=1, reason="returned", charged=charge)])
    assert state.on_vacation(t0 + 7_200_001) is None and state.available(t0 + 7_200_001) == 8
    # three months on: +9, capped at 12
    assert state.available(t0 + 3 * MONTH_MS + 1) == 12
    # a vacation that lasted 3.5 days is charged 4; one never ended is charged its days
    assert policy.charge(0, int(3.5 * DAY_MS), 5) == 4 and policy.charge(0, 9 * DAY_MS, 5) == 5
