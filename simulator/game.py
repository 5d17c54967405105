"""Bots play real Nerts rounds, simultaneously, in continuous time.

The model follows ``RULES.md``: each deck's layout (Nerts pile of 13 with the top face up, four work
piles built down in alternating colours with runs and the slide-under move, stock and waste turned
by ``stock_turn`` with recycling), the shared foundations (Aces start them, a King completes and
removes one), the first-touch rule, the all-stuck procedure and the Nerts call.

Bots are discrete-event agents. Each hand is busy for the whole of one move: a reaction time drawn
from a log-normal distribution (a skill knob), then a minimum-jerk reach whose duration grows with
distance, a grab, a carry, contact, and release. Moves are chosen from the state at decision time,
so two bots can go for the same foundation spot and a race follows naturally: a card whose spot was
taken more than a perception lag before its contact is aborted (the player saw it and pulled back);
one taken later touches the pile too and loses the contest (it is taken back). ``disputes`` stages
races with exact contact-time gaps so timing can be measured.

Everything the camera would see goes to a :class:`~simulator.timeline.Timeline`; everything a perfect
observer would report goes to ``truth`` in the referee's JSONL schema (Contract 1).

>>> from simulator.game import GameConfig, play_game
>>> rec = play_game(GameConfig(players=2, seed=1, max_seconds=20))
>>> rec.truth[0]["type"], rec.truth[1]["type"]
('game_started', 'round_started')
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from referee.cards import FULL_DECK, Card
from referee.settings import Rules
from simulator.layout import TableLayout, distance
from simulator.timeline import CardInfo, Flight, HandTrack, Placement, Timeline

NAMES = ("ana", "ben", "cleo", "dev", "eli", "fay", "gus", "hana")
BACKS = ("red", "blue", "green", "orange", "purple", "teal", "yellow", "black")  # far apart in hue
WORK = 4

PERCEIVE_S = 0.25  # a spot taken this long before our contact is seen in time to pull back
CALL_SLACK_S = 0.35  # with land_after_call: a card this close to contact at the call still lands
ROUND_GAP_S = 4.0  # time between rounds (cards gathered, shuffled and dealt again)
# a contest's loser still takes their copy back this long after the round ended (the camera films on)
TAKE_BACK_AFTER_END_S = 2.0


# --- configuration ---------------------------------------------------------------------------

@dataclass
class GameConfig:
    """What to simulate. ``rules`` holds RULES.md settings by name (defaults follow RULES.md).

    ``skill`` (0 slow .. 1 fast) sets reaction times (median about 1.6 s at 0, 0.7 s at 1) and reach
    speed; ``disputes`` lists contact-time gaps in ms to stage; ``max_seconds`` caps each round
    (the round then ends and is scored as it stands).
    """

    players: int = 4
    seed: int = 0
    names: list[str] | None = None
    backs: list[str] | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    skill: float | list[float] = 0.5
    disputes: list[float] = field(default_factory=list)
    rounds: int = 1
    max_seconds: float | None = None
    play_on: float = 0.35  # chance a bot keeps playing after emptying its Nerts pile
    # False: every hand freezes at the Nerts call (cards in the air go back untouched). True: a card
    # within 350 ms of contact still lands, and the referee rules it by `in_flight_at_call`.
    land_after_call: bool = False
    first_dispute_s: float = 6.0
    dispute_every_s: float = 9.0
    lead_in_s: float = 1.0  # footage before the first round starts
    # chance that a bot with nothing to play to the centre misjudges a card and plays it where it
    # does not fit (two ranks up, or the next rank of the wrong suit); it lies there a moment until
    # the table points it out and its owner takes it back. 0: bots never play an illegal card.
    mistakes: float = 0.0

    def validate(self) -> Rules:
        from nerts_referee.errors import UsageError

        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= 8:
            raise UsageError(f"--players: {self.players!r} is not allowed; allowed values: 2 to 8 players")
        try:
            rules = Rules.from_dict({"end_condition": "fixed_rounds", "rounds": max(1, int(self.rounds)),
                                     **self.rules})
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if rules.teams == "pairs" and (self.players % 2 or self.players < 4):
            raise UsageError(f"teams = 'pairs' needs an even number of players from 4 to 8, got {self.players}")
        if not isinstance(self.rounds, int) or self.rounds < 1:
            raise UsageError(f"--rounds: {self.rounds!r} is not allowed; allowed values: 1 or more")
        if self.max_seconds is not None and not self.max_seconds > 5:
            raise UsageError(f"--max-seconds: {self.max_seconds!r} is not allowed; allowed values: more than 5")
        for g in self.disputes:
            if not (isinstance(g, (int, float)) and 0 <= g <= 2000):
                raise UsageError(f"--disputes: {g!r} is not allowed; allowed values: gaps from 0 to 2000 ms")
        names = self.names or list(NAMES[: self.players])
        if len(names) != self.players or len(set(names)) != len(names):
            raise UsageError(f"player names must be {self.players} distinct names, got {names}")
        if isinstance(self.mistakes, bool) or not isinstance(self.mistakes, (int, float)) or not 0.0 <= self.mistakes <= 1.0:
            raise UsageError(f"--mistakes: {self.mistakes!r} is not allowed; allowed values: a chance from 0 to 1")
        skills = self.skill if isinstance(self.skill, list) else [self.skill] * self.players
        if len(skills) != self.players or not all(0.0 <= s <= 1.0 for s in skills):
            raise UsageError(f"skill must be in 0..1 (one value or one per player), got {self.skill!r}")
        return rules


# --- cards, piles, foundations ---------------------------------------------------------------

@dataclass(eq=False)
class PCard:
    """A physical card. ``card`` is None for a Joker until it is declared."""

    uid: int
    deck: int
    card: Card | None
    joker: str | None = None  # "JOKER-R" / "JOKER-B"
    declared: Card | None = None
    face_up: bool = False

    @property
    def ident(self) -> Card | None:
        return self.declared if self.joker else self.card

    @property
    def name(self) -> str:
        return self.joker or str(self.card)

    @property
    def colour(self) -> str | None:
        return self.card.colour if self.card else None


@dataclass
class Layout:
    deck: int
    nerts: list[PCard] = field(default_factory=list)
    work: list[list[PCard]] = field(default_factory=lambda: [[] for _ in range(WORK)])
    stock: list[PCard] = field(default_factory=list)  # top = last
    waste: list[PCard] = field(default_factory=list)  # top = last

    def pile(self, slot: str) -> list[PCard]:
        if slot.startswith("work"):
            return self.work[int(slot[4:])]
        return getattr(self, slot)


@dataclass
class Foundation:
    """A centre pile: groups of cards, one group per spot (two when a tie left both cards)."""

    fid: str
    slot: int
    groups: list[list[tuple[PCard, float, int]]] = field(default_factory=list)  # (card, arrival, hand)
    complete: bool = False
    removed: bool = False
    reserved_by: int | None = None  # a staged dispute holds it

    @property
    def cards(self) -> list[PCard]:
        return [c for g in self.groups for c, _, _ in g]

    @property
    def top_group(self) -> list[tuple[PCard, float, int]]:
        return self.groups[-1] if self.groups else []

    @property
    def top(self) -> Card | None:
        return self.groups[-1][-1][0].ident if self.groups else None

    @property
    def below_top(self) -> Card | None:
        return self.groups[-2][-1][0].ident if len(self.groups) > 1 else None


def fits(card: Card | None, below: Card | None, rule: str) -> bool:
    """May ``card`` go on ``below`` (None: a new pile) under ``foundation_rule``?"""
    if card is None:
        return False
    if below is None:
        return card.rank == 1
    if below.rank == 13 or card.rank != below.rank + 1:
        return False
    if rule == "same_suit":
        return card.suit == below.suit
    if rule == "alternate_colour":
        return card.colour != below.colour
    return True


def builds_on(card: PCard, onto: PCard) -> bool:
    """Work-pile building: one rank lower, opposite colour. Jokers are not built on by bots."""
    if card.card is None or onto.card is None:
        return False
    return card.card.rank == onto.card.rank - 1 and card.card.colour != onto.card.colour


def run_start(pile: list[PCard]) -> int:
    """Index where the movable run at the top of a work pile starts."""
    k = len(pile) - 1
    while k > 0 and builds_on(pile[k], pile[k - 1]):
        k -= 1
    return max(k, 0)


# --- hands -----------------------------------------------------------------------------------

@dataclass
class Hand:
    index: int  # player index
    name: str
    deck: int
    skill: float
    track: HandTrack
    rest: tuple[float, float]
    busy: bool = False
    free_at: float = 0.0
    pos: tuple[float, float] = (0.0, 0.0)
    stuck: bool = False
    turns_idle: int = 0
    idle_version: int = -1
    scripted: bool = False
    reserved_other: set[str] = field(default_factory=set)
    play_on_until: float | None = None
    reserved: set[str] = field(default_factory=set)  # own piles in use (teams share a layout)
    action_id: int = 0

    def reaction(self, rng: random.Random) -> float:
        """Time from the hand coming free to the next move starting: perceive, decide, and now
        and then look around the table a little longer (real players scan the centre)."""
        median = 1.75 - 0.9 * self.skill
        r = min(3.0, max(0.3, rng.lognormvariate(math.log(median), 0.35)))
        if rng.random() < 0.25:
            r += rng.uniform(0.4, 1.6) * (1.3 - 0.6 * self.skill)
        return r

    def travel(self, a: tuple[float, float], b: tuple[float, float]) -> float:
        speed = 0.7 + 0.6 * self.skill  # metres per second, average over the reach
        return 0.15 + distance(a, b) / 1000.0 / speed


@dataclass
class Dispute:
    pile: str
    card: str
    contenders: list[str]
    gap_ms: float
    winner: str | None
    tie: bool
    staged: bool
    t: float
    round: int
    gaps_ms: list[float] = field(default_factory=list)  # each later contender's gap to the first
    cards: list[str] = field(default_factory=list)  # each contender's card (they differ unless same_suit)
    times: list[float] = field(default_factory=list)  # each contender's contact time

    def to_dict(self) -> dict[str, Any]:
        return {"pile": self.pile, "card": self.card, "cards": self.cards, "contenders": self.contenders,
                "times": [round(x, 6) for x in self.times],
                "gap_ms": round(self.gap_ms, 3), "gaps_ms": [round(g, 3) for g in self.gaps_ms],
                "winner": self.winner, "tie": self.tie,
                "staged": self.staged, "t": round(self.t, 6), "round": self.round}


@dataclass
class RoundResult:
    index: int
    t_start: float
    t_end: float
    ended_by: str  # "nerts" | "stuck" | "time"
    caller: str | None
    centre: dict[str, int]  # per scoring unit
    nerts_left: dict[str, int]
    scores: dict[str, int]


@dataclass
class GameRecord:
    """Everything one simulated game produced."""

    config: GameConfig
    rules: Rules
    layout: TableLayout
    players: list[dict[str, Any]]  # name, back, seat, team
    truth: list[dict[str, Any]]
    timeline: Timeline
    rounds: list[RoundResult]
    disputes: list[Dispute]
    unstaged: list[float]
    totals: dict[str, int]  # per player (team members share their team's total)
    mistakes: list[dict[str, Any]] = field(default_factory=list)  # illegal plays: card, player, pile, t

    @property
    def duration(self) -> float:
        return self.timeline.end_t


# --- the simulation ---------------------------------------------------------------------------

class Game:
    """One game: rounds of simultaneous play by bots. Use :func:`play_game`."""

    def __init__(self, cfg: GameConfig):
        self.cfg = cfg
        self.rules = cfg.validate()
        self.rng = random.Random(cfg.seed)
        n = cfg.players
        self.teams = self.rules.teams == "pairs"
        self.n_decks = n // 2 if self.teams else n
        self.layout = TableLayout.for_players(self.n_decks)
        names = cfg.names or list(NAMES[:n])
        backs = cfg.backs or list(BACKS[: self.n_decks])
        if len(backs) < self.n_decks:
            from nerts_referee.errors import UsageError
            raise UsageError(f"need {self.n_decks} back colours, got {len(backs)}")
        skills = cfg.skill if isinstance(cfg.skill, list) else [cfg.skill] * n
        self.players: list[dict[str, Any]] = []
        self.hands: list[Hand] = []
        self.timeline = Timeline()
        for i in range(n):
            deck = i // 2 if self.teams else i
            offset = (-110.0 if i % 2 == 0 else 110.0) if self.teams else 0.0
            team = f"team{deck + 1}" if self.teams else None
            self.players.append({"name": names[i], "back": backs[deck], "seat": i, "team": team})
            track = HandTrack(deck=deck, offset_mm=offset)
            rest = self.layout.hand_rest(deck, offset)
            self.hands.append(Hand(i, names[i], deck, skills[i], track, rest, pos=rest))
            self.timeline.hands.append(track)
        self.deck_backs = backs[: self.n_decks]
        self.unit_of_deck = [(f"team{d + 1}" if self.teams else names[d]) for d in range(self.n_decks)]
        # physical cards, persistent across rounds
        self.decks: list[list[PCard]] = []
        uid = 0
        for d in range(self.n_decks):
            cards = [PCard(uid + k, d, c) for k, c in enumerate(FULL_DECK)]
            uid += len(cards)
            if self.rules.jokers == "on":
                cards += [PCard(uid, d, None, "JOKER-R"), PCard(uid + 1, d, None, "JOKER-B")]
                uid += 2
            self.decks.append(cards)
            for c in cards:
                self.timeline.cards[c.uid] = CardInfo(c.uid, d, c.name, backs[d])
        self.truth: list[dict[str, Any]] = []
        self.disputes: list[Dispute] = []
        self.mistakes: list[dict[str, Any]] = []  # illegal plays made (GameConfig.mistakes)
        self._misjudged_before: set[tuple[int, str]] = set()  # (card uid, pile id) of each mistake
        self.pending_gaps = list(cfg.disputes)
        self.unstaged: list[float] = []
        self.pile_counter = 0
        self.z = 0.0
        self.nerts_sizes = [self.rules.nerts_pile_size] * self.n_decks
        self.round_results: list[RoundResult] = []
        self.call_slack = CALL_SLACK_S if cfg.land_after_call else 0.0

    # --- event queue -------------------------------------------------------------------------
    def at(self, t: float, fn: Callable[..., None], *args: Any) -> None:
        self._seq += 1
        heapq.heappush(self._queue, (t, self._seq, fn, args))

    # --- public ------------------------------------------------------------------------------
    def play(self) -> GameRecord:
        settings = self.rules.to_dict()
        self.truth.append({"type": "game_started",
                           "players": [dict(p, team=p["team"] or "") for p in self.players],
                           "settings": settings})
        t = self.cfg.lead_in_s
        totals = {u: 0 for u in self.unit_of_deck}
        for r in range(self.cfg.rounds):
            res = self._play_round(r, t)
            self.round_results.append(res)
            for u, s in res.scores.items():
                totals[u] += s
            if self.rules.handicap == "on":
                best = max(res.scores.values())
                for d, u in enumerate(self.unit_of_deck):
                    if res.scores[u] == best:
                        self.nerts_sizes[d] = min(self.nerts_sizes[d] + 1, 40)
                    if totals[u] <= 0:
                        self.nerts_sizes[d] = max(self.nerts_sizes[d] - 1, 3)
            t = res.t_end + ROUND_GAP_S
        self.timeline.end_t = self.round_results[-1].t_end + 1.5
        self.unstaged.extend(self.pending_gaps)
        per_player = {p["name"]: totals[self.unit_of_deck[self.hands[i].deck]] for i, p in enumerate(self.players)}
        return GameRecord(self.cfg, self.rules, self.layout, self.players, self.truth, self.timeline.sorted(),
                          self.round_results, self.disputes, self.unstaged, per_player, self.mistakes)

    # --- one round ---------------------------------------------------------------------------
    def _play_round(self, r: int, t0: float) -> RoundResult:
        self._queue: list[Any] = []
        self._seq = 0
        self.round = r
        self.t0 = t0
        self.over = False
        self.call_t: float | None = None
        self.caller: str | None = None
        self.end_t: float | None = None
        self.ended_by = "time"
        self.foundations: list[Foundation] = []
        self.slot_free = [True] * len(self.layout.foundation_slots)
        self.version = 0  # bumps whenever a foundation changes
        self.stuck_rounds = 0
        self.progress_since_stuck = True
        self.inflight: dict[int, dict[str, Any]] = {}  # hand -> the move it is making
        self.layouts = [Layout(d) for d in range(self.n_decks)]
        self.staging: dict[str, Any] | None = None
        self._group_dispute: dict[int, tuple[list, Dispute]] = {}
        self._touch_t: dict[int, float] = {}
        self._deal(t0 - 0.9 if r == 0 else t0 - 1.0)
        self.truth.append({"type": "round_started", "t": round(t0, 6)})
        for h in self.hands:
            h.busy, h.stuck, h.turns_idle, h.scripted, h.play_on_until = False, False, 0, False, None
            h.reserved.clear()
            h.pos = h.rest
            h.track.add(t0 - 0.5 if r else 0.0, *h.rest)
            self.at(t0 + h.reaction(self.rng) + 0.3, self._think, h.index)
        if self.pending_gaps:
            first = self.cfg.first_dispute_s
            if self.cfg.max_seconds:  # short rounds (demo, tests) stage their first race early
                first = min(first, 0.3 * self.cfg.max_seconds)
            self.at(t0 + first, self._try_stage)
        if self.cfg.max_seconds:
            self.at(t0 + self.cfg.max_seconds, self._time_up)
        self.at(t0 + 1.0, self._stuck_check)
        while self._queue and not (self.end_t is not None and self._queue[0][0] > self.end_t):
            t, _, fn, args = heapq.heappop(self._queue)
            fn(t, *args)
        assert self.end_t is not None
        self._settle_take_backs()
        return self._finish_round(r, t0)

    def _settle_take_backs(self) -> None:
        """Contest copies due to be taken back after the round ended are taken back: nothing
        touches after the end, but a hand does not freeze at the pile holding a lifted card (what
        a camera films on: 60 s dev clips 5486, 5500, 5528 froze a contest at the time limit, and
        the footage could not show who took their copy back). Drawn from a copy of the generator,
        so every later round plays as before."""
        assert self.end_t is not None
        state = self.rng.getstate()
        for t, _, fn, args in sorted(self._queue, key=lambda e: (e[0], e[1])):
            if fn == self._take_back and t <= self.end_t + TAKE_BACK_AFTER_END_S:
                fn(t, *args)
        self.rng.setstate(state)

    def _deal(self, t: float) -> None:
        rng = self.rng
        for d, lay in enumerate(self.layouts):
            cards = list(self.decks[d])
            rng.shuffle(cards)
            for c in cards:
                c.face_up, c.declared = False, None
            n = self.nerts_sizes[d]
            lay.nerts = cards[:n]
            for i in range(WORK):
                lay.work[i] = [cards[n + i]]
            lay.stock = cards[n + WORK:]
            lay.waste = []
            if lay.nerts:
                lay.nerts[-1].face_up = True
            for w in lay.work:
                w[0].face_up = True
            for slot in ("stock", "nerts", "work0", "work1", "work2", "work3"):
                pile = lay.pile(slot)
                for i, c in enumerate(pile):
                    self._place(t, c, d, slot, i, len(pile), jitter=1.2)

    # --- timeline helpers ----------------------------------------------------------------------
    def _jitter(self, pose: tuple[float, float, float], mm: float, deg: float) -> tuple[float, float, float]:
        g = self.rng.gauss
        return (pose[0] + g(0, mm), pose[1] + g(0, mm), pose[2] + g(0, deg))

    def _pile_name(self, deck: int, slot: str) -> str:
        return f"{self.deck_backs[deck]}:{slot}" if not self.teams else f"{self.unit_of_deck[deck]}:{slot}"

    def _place(self, t: float, c: PCard, deck: int, slot: str, index: int, count: int, jitter: float = 1.0,
               pose: tuple[float, float, float] | None = None, z: float | None = None) -> tuple[float, float, float]:
        if pose is None:
            pose = self._jitter(self.layout.card_pose(deck, slot, index, count), jitter, jitter * 1.2)
        self.z += 1.0
        self.timeline.placements.append(Placement(t, c.uid, "place", pose, self.z if z is None else z, c.face_up,
                                                  self._pile_name(deck, slot)))
        c._pose = pose  # type: ignore[attr-defined]
        c._z = self.z if z is None else z  # type: ignore[attr-defined]
        return pose

    def _pose_z(self, c: PCard) -> float:
        return getattr(c, "_z", self.z)

    def _lift(self, t: float, c: PCard) -> None:
        self.timeline.placements.append(Placement(t, c.uid, "lift"))

    def _pose_of(self, c: PCard) -> tuple[float, float, float]:
        return getattr(c, "_pose", (0.0, 0.0, 0.0))

    def _hand_move(self, h: Hand, t0: float, path: list[tuple[float, tuple[float, float]]]) -> None:
        """Append keyframes (time, point); the hand holds still between consecutive moves."""
        h.track.add(t0, *h.pos)
        for t, p in path:
            h.track.add(t, *p)
        h.pos = path[-1][1] if path else h.pos

    # --- bots --------------------------------------------------------------------------------
    def _think(self, t: float, hi: int) -> None:
        h = self.hands[hi]
        if self.over or h.busy or h.scripted:
            return
        lay = self.layouts[h.deck]
        if not lay.nerts and self.call_t is None:
            if h.play_on_until is None:
                h.play_on_until = t + (self.rng.uniform(2.0, 6.0) if self.rng.random() < self.cfg.play_on else 0.0)
            move = self._choose(h, lay, foundation_only=True) if t < h.play_on_until else None
            if move is None:
                self._call_nerts(t + self.rng.uniform(0.15, 0.4), h)
                return
        else:
            move = self._choose(h, lay)
        if move is None:
            # nothing to do (stuck): look again when the centre changes
            h.stuck = True
            h.idle_version = self.version
            self._retreat(h, t)
            self.at(t + 0.8, self._recheck, hi)
            return
        self._execute(h, t, move)

    def _recheck(self, t: float, hi: int) -> None:
        h = self.hands[hi]
        if self.over or h.busy or h.scripted or not h.stuck:
            return
        if self.version != h.idle_version:
            h.stuck = False
            h.turns_idle = 0
            self.at(t + h.reaction(self.rng) * 0.5, self._think, hi)
        else:
            self.at(t + 0.8, self._recheck, hi)

    def _retreat(self, h: Hand, t: float) -> None:
        if distance(h.pos, h.rest) > 5:
            self._hand_move(h, t, [(t + h.travel(h.pos, h.rest) + 0.2, h.rest)])

    def _cycle_len(self, lay: Layout) -> int:
        n = len(lay.stock) + len(lay.waste)
        return math.ceil(n / self.rules.stock_turn) + 1

    def _playable(self, lay: Layout, h: Hand) -> list[tuple[str, PCard]]:
        out: list[tuple[str, PCard]] = []
        if lay.nerts and lay.nerts[-1].face_up and "nerts" not in h.reserved_other:
            out.append(("nerts", lay.nerts[-1]))
        for i, w in enumerate(lay.work):
            if w and f"work{i}" not in h.reserved_other:
                out.append((f"work{i}", w[-1]))
        if lay.waste and "waste" not in h.reserved_other:
            out.append(("waste", lay.waste[-1]))
        return out

    def _foundation_for(self, h: Hand, c: PCard) -> Foundation | None | str:
        """Best foundation for ``c``: a Foundation, "new" for a new pile, or None."""
        rule = self.rules.foundation_rule
        staged = self.staging
        if c.joker:
            if self.rules.jokers != "on":
                return None
            options = [f for f in self.foundations if not f.complete and f.reserved_by is None and f.groups
                       and f.top is not None and f.top.rank < 13]
            if not options:
                return None
            return min(options, key=lambda f: distance(h.pos, self.layout.foundation_slots[f.slot]))
        ident = c.ident
        if ident is None:
            return None
        if ident.rank == 1:
            return "new" if any(self.slot_free) else None
        options = [f for f in self.foundations
                   if f.groups and not f.complete and f.reserved_by is None and fits(ident, f.top, rule)
                   and not self._teammate_targets(h, f)]
        if staged and staged["card"] == str(ident):
            options = [f for f in options if f.fid != staged["pile"]]
        if not options:
            return None
        return min(options, key=lambda f: distance(h.pos, self.layout.foundation_slots[f.slot]))

    def _misjudged(self, h: Hand, lay: Layout) -> dict[str, Any] | None:
        """A wrong play a hurried player makes: a card two ranks above a pile's top (same suit or
        colour), or the next rank in the wrong suit of the right colour; the nearest such pile."""
        rule = self.rules.foundation_rule
        busy = {m.get("fid") for m in self.inflight.values()}  # (a contest is the staging's business)
        options = []
        for slot, c in self._playable(lay, h):
            ident = c.ident
            if c.joker or ident is None or ident.rank == 1:
                continue
            for f in self.foundations:
                top = f.top
                if not f.groups or f.complete or f.reserved_by is not None or top is None or fits(ident, top, rule):
                    continue
                if f.fid in busy or (c.uid, f.fid) in self._misjudged_before:
                    continue  # (a mistake pointed out is not made again)
                near_miss = (ident.rank == top.rank + 2 and ident.colour == top.colour) or \
                    (ident.rank == top.rank + 1 and ident.suit != top.suit and ident.colour == top.colour)
                if near_miss:
                    options.append((distance(h.pos, self.layout.foundation_slots[f.slot]), slot, c, f))
        if not options:
            return None
        _, slot, c, f = min(options, key=lambda o: o[0])
        self._misjudged_before.add((c.uid, f.fid))
        return {"kind": "found", "src": slot, "cards": [c], "target": f, "mistake": True}

    def _teammate_targets(self, h: Hand, f: Foundation) -> bool:
        return any(m.get("fid") == f.fid for i, m in self.inflight.items() if self.hands[i].deck == h.deck and i != h.index)

    def _choose(self, h: Hand, lay: Layout, foundation_only: bool = False) -> dict[str, Any] | None:
        h.reserved_other = set().union(*[o.reserved for o in self.hands if o.deck == h.deck and o is not h])
        rule_ok = self.call_t is None
        if not rule_ok:
            return None
        # 0. turn the Nerts card up
        if lay.nerts and not lay.nerts[-1].face_up and "nerts" not in h.reserved_other:
            return {"kind": "flip", "src": "nerts"}
        # 1. anything to the centre: the Nerts card first, then work piles, then the waste
        for slot, c in self._playable(lay, h):
            target = self._foundation_for(h, c)
            if target is not None:
                return {"kind": "found", "src": slot, "cards": [c], "target": target}
        if self.cfg.mistakes and self.rng.random() < self.cfg.mistakes:
            wrong = self._misjudged(h, lay)
            if wrong is not None:
                return wrong
        if foundation_only:
            return None
        free = [f"work{i}" for i in range(WORK) if f"work{i}" not in h.reserved_other]
        # 2. the Nerts card into the work piles: slide-under, build, or an empty pile
        if lay.nerts and lay.nerts[-1].face_up and "nerts" not in h.reserved_other:
            c = lay.nerts[-1]
            for s in free:
                w = lay.pile(s)
                if w and c.card and w[0].card and builds_on(w[0], c):
                    return {"kind": "under", "src": "nerts", "dst": s, "cards": [c]}
            for s in free:
                w = lay.pile(s)
                if w and builds_on(c, w[-1]):
                    return {"kind": "work", "src": "nerts", "dst": s, "cards": [c]}
            for s in free:
                if not lay.pile(s):
                    return {"kind": "work", "src": "nerts", "dst": s, "cards": [c]}
        # 3. runs between work piles: empty a pile for the Nerts card or free a centre card
        for s in free:
            src = lay.pile(s)
            if not src:
                continue
            k = run_start(src)
            under = src[k - 1] if k > 0 else None
            useful = (k == 0 and bool(lay.nerts)) or (under is not None and self._foundation_for(h, under) is not None)
            if not useful:
                continue
            for d in free:
                if d == s:
                    continue
                dst = lay.pile(d)
                if dst and builds_on(src[k], dst[-1]):
                    return {"kind": "work", "src": s, "dst": d, "cards": src[k:]}
                if not dst and k > 0 and under is not None:
                    return {"kind": "work", "src": s, "dst": d, "cards": src[k:]}
        # 4. the waste card onto a work pile
        if lay.waste and "waste" not in h.reserved_other:
            c = lay.waste[-1]
            for s in free:
                w = lay.pile(s)
                if w and builds_on(c, w[-1]):
                    return {"kind": "work", "src": "waste", "dst": s, "cards": [c]}
            if not lay.nerts:
                for s in free:
                    if not lay.pile(s):
                        return {"kind": "work", "src": "waste", "dst": s, "cards": [c]}
        # 5. turn the stock (or turn the waste over), unless a whole cycle brought nothing
        if "stock" in h.reserved_other or "waste" in h.reserved_other:
            return None
        if h.turns_idle >= self._cycle_len(lay) and h.idle_version == self.version:
            return None
        if h.idle_version != self.version:
            h.idle_version = self.version
            h.turns_idle = 0
        if lay.stock:
            return {"kind": "turn"}
        if lay.waste:
            return {"kind": "recycle"}
        return None

    # --- executing a move ----------------------------------------------------------------------
    def _execute(self, h: Hand, t: float, move: dict[str, Any], contact_at: float | None = None) -> None:
        rng = self.rng
        lay = self.layouts[h.deck]
        kind = move["kind"]
        h.busy = True
        h.stuck = False
        h.action_id += 1
        if kind in ("turn", "recycle"):
            h.turns_idle += 1
        else:
            h.turns_idle = 0
            self.progress_since_stuck = True
        if kind == "flip":
            c = lay.nerts[-1]
            p = self._pose_of(c)[:2]
            t1 = t + h.travel(h.pos, p)
            t2 = t1 + rng.uniform(0.12, 0.22)
            self._hand_move(h, t, [(t1, p), (t2, p)])
            h.reserved = {"nerts"}
            self.at(t1 + 0.05, self._do_flip, h.index, c)
            self.at(t2, self._free, h.index)
            return
        if kind in ("turn", "recycle"):
            sp = self.layout.slot_pose(h.deck, "stock")[:2]
            wp = self.layout.slot_pose(h.deck, "waste")[:2]
            t1 = t + h.travel(h.pos, sp)
            t2 = t1 + rng.uniform(0.1, 0.18)
            t3 = t2 + rng.uniform(0.18, 0.3)
            self._hand_move(h, t, [(t1, sp), (t2, sp), (t3, wp)])
            h.reserved = {"stock", "waste"}
            if kind == "turn":
                k = min(self.rules.stock_turn, len(lay.stock))
                taken = [lay.stock.pop() for _ in range(k)]
                for c in taken:
                    c.face_up = True
                    lay.waste.append(c)
                for c in taken:
                    self._lift(t2, c)
                n = len(lay.waste)
                for j, c in enumerate(lay.waste[-(k + 3):]):
                    idx = n - min(n, k + 3) + j
                    final = self._jitter(self.layout.card_pose(h.deck, "waste", idx, n), 1.0, 1.5)
                    if c in taken:
                        self.timeline.flights.append(Flight(c.uid, h.index, t2, t3, t3 + 0.06, self._pose_of(c),
                                                            final, final, True))
                        self._place(t3 + 0.06, c, h.deck, "waste", idx, n, pose=final)
                    else:  # earlier waste cards close up under the new fan
                        self._place(t3 + 0.06, c, h.deck, "waste", idx, n, pose=final, z=self.z - 10 + j * 0.01)
            else:
                cards = lay.waste[::-1]
                lay.waste = []
                for c in cards:
                    c.face_up = False
                lay.stock = cards
                for c in cards:
                    self._lift(t1 + 0.05, c)
                n = len(cards)
                for i, c in enumerate(cards):
                    self._place(t2 + 0.05, c, h.deck, "stock", i, n, jitter=0.8)
                self._hand_move(h, t3, [(t3 + 0.01, wp)])
            self.at(t3 + 0.02, self._free, h.index)
            return
        # card moves
        src = move["src"]
        cards: list[PCard] = move["cards"]
        pile = lay.pile(src)
        k = len(pile) - len(cards)
        assert pile[k:] == cards, "moving cards that are not on top"
        del pile[k:]
        src_pose = self._pose_of(cards[0])
        grab = src_pose[:2]
        t1 = t + h.travel(h.pos, grab)
        t_grab = t1 + rng.uniform(0.06, 0.14)
        h.reserved = {src}
        for c in cards:
            self._lift(t_grab, c)
        if kind == "found":
            self._move_to_foundation(h, t, t1, t_grab, src, cards[0], move["target"], contact_at,
                                     mistake=bool(move.get("mistake")))
            return
        dst = move["dst"]
        h.reserved = {src, dst}
        dpile = lay.pile(dst)
        if kind == "under":
            dpile.insert(0, cards[0])
            base_idx = 0
        else:
            base_idx = len(dpile)
            dpile.extend(cards)
        n = len(dpile)
        dest_pose = self.layout.card_pose(h.deck, dst, base_idx, n)
        t_contact = t_grab + h.travel(grab, dest_pose[:2])
        t_rel = t_contact + rng.uniform(0.06, 0.14)
        self._hand_move(h, t, [(t1, grab), (t_grab, grab), (t_contact, dest_pose[:2]), (t_rel, dest_pose[:2])])
        for j, c in enumerate(cards):
            idx = base_idx + j
            final = self._jitter(self.layout.card_pose(h.deck, dst, idx, n), 1.2, 1.8)
            contact = self._jitter(final, 2.5, 3.0)
            self.timeline.flights.append(Flight(c.uid, h.index, t_grab, t_contact, t_contact + 0.08,
                                                self._pose_of(c), contact, final, True,
                                                lift_mm=j * 15.0))
            self._place(t_contact + 0.08, c, h.deck, dst, idx, n, pose=final)
        if kind == "work" and n > 8:  # a long pile is squeezed together to stay on the table
            for idx, c in enumerate(dpile[:base_idx]):
                pose = self._jitter(self.layout.card_pose(h.deck, dst, idx, n), 0.6, 0.6)
                self._place(t_contact + 0.08, c, h.deck, dst, idx, n, pose=pose, z=self._pose_z(c))
        if kind == "under":  # the pile is pushed along by one step
            for idx, c in enumerate(dpile[1:], start=1):
                pose = self._jitter(self.layout.card_pose(h.deck, dst, idx, n), 0.6, 0.6)
                self._place(t_contact + 0.08, c, h.deck, dst, idx, n, pose=pose, z=self.z + 1 + idx * 0.01)
            self.z += n + 2
            # the slid card must stay under: re-place it at the bottom of the z order
            self.timeline.placements[-n].z = self.z - n - 5
        self.at(t_rel, self._free, h.index)

    def _do_flip(self, t: float, hi: int, c: PCard) -> None:
        c.face_up = True
        self.timeline.placements.append(Placement(t, c.uid, "flip", face_up=True))

    def _free(self, t: float, hi: int) -> None:
        h = self.hands[hi]
        h.busy = False
        h.reserved = set()
        self.inflight.pop(hi, None)
        if self.over:
            return
        if h.scripted:
            self._staging_progress(t)
            return
        r = h.reaction(self.rng)
        # while deciding, the hand drifts back towards its rest instead of hovering over the pile
        if distance(h.pos, h.rest) > 60.0 and r > 0.35:
            p = (h.pos[0] + (h.rest[0] - h.pos[0]) * 0.6, h.pos[1] + (h.rest[1] - h.pos[1]) * 0.6)
            self._hand_move(h, t, [(t + min(r - 0.05, h.travel(h.pos, p)), p)])
        self.at(t + r, self._think, hi)

    # --- the centre --------------------------------------------------------------------------
    def _move_to_foundation(self, h: Hand, t: float, t1: float, t_grab: float, src: str, c: PCard,
                            target: Foundation | str, contact_at: float | None, mistake: bool = False) -> None:
        rng = self.rng
        if target == "new":
            slots = [i for i, free in enumerate(self.slot_free) if free]
            # players start piles in the middle, a little towards themselves
            w, hgt = self.layout.table_mm
            aim = (w / 2 + (h.rest[0] - w / 2) * 0.3, hgt / 2 + (h.rest[1] - hgt / 2) * 0.3)
            slot = min(slots, key=lambda i: distance(aim, self.layout.foundation_slots[i]))
            self.slot_free[slot] = False
            self.pile_counter += 1
            f = Foundation(f"p{self.pile_counter}", slot)
            self.foundations.append(f)
        else:
            assert isinstance(target, Foundation)
            f = target
        if c.joker:
            c.declared = (f.top.next_up() if self.rules.foundation_rule == "same_suit" else
                          Card(f.top.rank + 1, "H" if f.top.colour == "black" else "S"))
        spot = self.layout.foundation_slots[f.slot]
        seat_angle = self.layout.seats[h.deck].angle_deg
        final = (spot[0] + rng.gauss(0, 3.0), spot[1] + rng.gauss(0, 3.0), seat_angle + rng.gauss(0, 7.0))
        contact = (final[0] + rng.gauss(0, 5.0), final[1] + rng.gauss(0, 5.0), final[2] + rng.gauss(0, 6.0))
        t_contact = t_grab + h.travel(c._pose[:2] if hasattr(c, "_pose") else h.pos, spot)
        if contact_at is not None:
            t_contact = max(t_contact, contact_at)
        hover = max(0.0, t_contact - (t_grab + h.travel(self._pose_of(c)[:2], spot)))
        # staged races hold equally long, so release times keep the staged gap too
        t_rel = t_contact + (0.12 if contact_at is not None else rng.uniform(0.08, 0.18))
        near = (spot[0] + (h.rest[0] - spot[0]) * 0.08, spot[1] + (h.rest[1] - spot[1]) * 0.08)
        path = [(t1, self._pose_of(c)[:2]), (t_grab, self._pose_of(c)[:2])]
        if hover > 0.02:
            path.append((t_contact - 0.12, near))
        path += [(t_contact, contact[:2]), (t_rel, contact[:2])]
        self._hand_move(h, t, path)
        move = {"fid": f.fid, "card": c, "src": src, "t_grab": t_grab, "t_contact": t_contact, "t_rel": t_rel,
                "contact": contact, "final": final, "action": h.action_id, "staged": contact_at is not None,
                "below": f.top, "mistake": mistake}
        self.inflight[h.index] = move
        self.timeline.flights.append(Flight(c.uid, h.index, t_grab, t_contact, t_contact + 0.1,
                                            self._pose_of(c), contact, final, True))
        if contact_at is None:
            self.at(t_contact - PERCEIVE_S, self._check_spot, h.index, move)
        # the pile is decided in arrival order: contact, or release when `arrival = release`
        self.at(t_rel if self.rules.arrival == "release" else t_contact, self._contact, h.index, move)

    def _check_spot(self, t: float, hi: int, move: dict[str, Any]) -> None:
        """A perception lag before contact: pull back if the spot is visibly gone."""
        h = self.hands[hi]
        if self.inflight.get(hi) is not move or self.over:
            return
        f = self._foundation(move["fid"])
        c: PCard = move["card"]
        if move.get("mistake") or f is not None and not f.complete and fits(c.ident, f.top, self.rules.foundation_rule):
            return  # (a misjudged card goes down all the same: the player did not see it was wrong)
        self._abort(t, h, move)

    def _abort(self, t: float, h: Hand, move: dict[str, Any]) -> None:
        """The card goes back where it came from without touching the centre."""
        c: PCard = move["card"]
        move["aborted"] = True
        self.inflight.pop(h.index, None)
        # drop the planned flight and the rest of the reach; carry the card back instead
        self.timeline.flights = [fl for fl in self.timeline.flights
                                 if not (fl.uid == c.uid and fl.t_grab == move["t_grab"])]
        if t < move["t_grab"]:
            t = move["t_grab"]
        h.track.keys = [k for k in h.track.keys if k[0] <= t]
        h.track._times = [k[0] for k in h.track.keys]
        here = h.track.at(t) if h.track.keys else h.pos
        h.pos = here
        self._return_card(t, h, c, move["src"], (here[0], here[1], move["contact"][2]), move["t_grab"])

    def _return_logical(self, h: Hand, c: PCard, src: str) -> None:
        if c.joker:
            c.declared = None
        self.layouts[h.deck].pile(src).append(c)

    def _return_card(self, t: float, h: Hand, c: PCard, src: str, from_pose: tuple[float, float, float],
                     t_grab: float | None = None, logical: bool = True) -> None:
        lay = self.layouts[h.deck]
        pile = lay.pile(src)
        if logical:
            self._return_logical(h, c, src)
        n = len(pile)
        final = self._jitter(self.layout.card_pose(h.deck, src, n - 1, n), 1.2, 1.5)
        t_back = t + h.travel(from_pose[:2], final[:2])
        t_rel = t_back + 0.08
        self._hand_move(h, t, [(t_back, final[:2]), (t_rel, final[:2])])
        self.timeline.flights.append(Flight(c.uid, h.index, t if t_grab is None else t_grab, t_back, t_back + 0.05,
                                            from_pose, final, final, True))
        self._place(t_back + 0.05, c, h.deck, src, n - 1, n, pose=final)
        h.reserved = {src}
        self.at(t_rel, self._free, h.index)

    def _foundation(self, fid: str) -> Foundation | None:
        for f in self.foundations:
            if f.fid == fid:
                return f
        return None

    def _contact(self, t: float, hi: int, move: dict[str, Any]) -> None:
        h = self.hands[hi]
        if self.inflight.get(hi) is not move or move.get("aborted"):
            return
        c: PCard = move["card"]
        f = self._foundation(move["fid"])
        assert f is not None
        if self.over or (self.call_t is not None and move["t_contact"] > self.call_t + self.call_slack):
            self._abort(t, h, move)
            return
        rule = self.rules.foundation_rule
        # arrival as the truth log states it (6 decimals), so gaps are computed exactly as a referee
        # reading the log computes them (a staged 50 ms gap at a 50 ms tie window stays a tie)
        t_arr = round(move["t_rel"] if self.rules.arrival == "release" else move["t_contact"], 6)
        ident = c.ident
        legal = fits(ident, f.top, rule) and not f.complete
        contest = (not legal) and bool(f.groups) and fits(ident, f.below_top, rule)
        mistake = not legal and not contest and bool(move.get("mistake"))
        if not legal and not contest and not mistake:
            self._abort(t, h, move)  # cannot happen for a staged/perceived move; stay safe
            return
        # it touches: the observation a perfect camera would report
        ev = {"type": "card_touched", "t": round(move["t_contact"], 6), "card": c.name if not c.joker else "JOKER",
              "player": h.name, "pile": f.fid, "release_t": round(move["t_rel"], 6),
              "lift_t": round(move["t_grab"], 6)}
        if c.joker:
            ev["declared"] = str(c.declared)
        self.truth.append(ev)
        self._touch_t[c.uid] = move["t_contact"]
        move["touched"] = True
        if mistake:  # it lies there until the table points it out, then its owner takes it back
            self.mistakes.append({"card": ev["card"], "player": h.name, "pile": f.fid, "t": ev["t"],
                                  "below": str(f.top), "round": self.round})
            self._take_back_after(t, h, move, linger_s=self.rng.uniform(0.8, 1.6))
            return
        after_call = self.call_t is not None and t_arr >= self.call_t
        stays = not after_call or self.rules.in_flight_at_call == "count"
        if self.call_t is not None and self.rules.in_flight_at_call == "return" and \
                max(move["t_rel"], t_arr) >= self.call_t:
            stays = False
        if legal:
            if stays:
                self._land(t, h, f, c, move, t_arr)
                if f.complete:  # the King's player sets the completed pile aside
                    self.at(move["t_rel"] + 0.25, self._set_aside, hi, f)
                else:
                    self.at(move["t_rel"], self._free, hi)
            else:
                self._take_back_after(t, h, move)
            return
        # a contest for the spot on top: first touch stays, later ones go back, a tie per tie_rule
        first_card, first_t, first_hand = f.top_group[0]
        gap_ms = (t_arr - first_t) * 1000.0
        tie = gap_ms <= self.rules.tie_window_ms
        contenders = [self.hands[x].name for _, _, x in f.top_group] + [h.name]
        winner = None if tie else self.hands[first_hand].name
        staged = bool(move.get("staged"))
        if stays:
            prev = self._group_dispute.get(id(f.top_group), (None, None))[1]
            if prev is not None:  # a third contender joins the same contest
                prev.contenders.append(h.name)
                prev.gaps_ms.append(gap_ms)
                prev.cards.append(c.name if not c.joker else "JOKER")
                prev.times.append(move["t_contact"])
            else:
                d = Dispute(f.fid, str(ident), contenders, gap_ms, winner, tie, staged, move["t_contact"], self.round)
                d.gaps_ms = [gap_ms]
                d.cards = [x.name if not x.joker else "JOKER" for x, _, _ in f.top_group] + \
                    [c.name if not c.joker else "JOKER"]
                d.times = [self._touch_t[x.uid] for x, _, _ in f.top_group] + [move["t_contact"]]
                self.disputes.append(d)
                self._group_dispute[id(f.top_group)] = (f.top_group, d)  # holds the group: ids stay unique
        if tie and self.rules.tie_rule == "both_stay" and stays:
            self._land(t, h, f, c, move, t_arr, contest=True)
            self.at(move["t_rel"], self._free, hi)
            return
        if tie and stays:
            # neither stays: the earlier tied card(s) leave the pile as well
            for card, _, x in f.groups.pop():
                self._evict(t, f, card, x)
            self.version += 1
        self._take_back_after(t, h, move)

    def _land(self, t: float, h: Hand, f: Foundation, c: PCard, move: dict[str, Any], t_arr: float,
              contest: bool = False) -> None:
        if contest:
            f.groups[-1].append((c, t_arr, h.index))
        else:
            f.groups.append([(c, t_arr, h.index)])
        c.face_up = True
        self.version += 1
        self.progress_since_stuck = True
        self._place_found(move["t_contact"] + 0.1, c, f, move["final"])
        if c.ident is not None and c.ident.rank == 13 and not contest:
            f.complete = True

    def _place_found(self, t: float, c: PCard, f: Foundation, pose: tuple[float, float, float]) -> None:
        self.z += 1.0
        self.timeline.placements.append(Placement(t, c.uid, "place", pose, self.z, True, f.fid))
        c._pose = pose  # type: ignore[attr-defined]

    def _set_aside(self, t: float, hi: int, f: Foundation) -> None:
        """A completed foundation leaves the play area: its player sweeps it up and puts it beside
        their own seat, out of the camera's view (it is still scored)."""
        h = self.hands[hi]
        f.removed = True
        self.slot_free[f.slot] = True
        seat = self.layout.seats[h.deck]
        spot = self.layout.foundation_slots[f.slot]
        aside = seat.to_table(h.track.offset_mm + 170.0, 300.0)
        t_arr = t + h.travel(spot, aside) + 0.1
        self._hand_move(h, t, [(t + 0.05, spot), (t_arr, aside)])
        for i, c in enumerate(f.cards):
            self._lift(t + 0.05, c)
            pose = self._pose_of(c)
            end = (aside[0] + pose[0] - spot[0], aside[1] + pose[1] - spot[1], pose[2])
            self.timeline.flights.append(Flight(c.uid, h.index, t + 0.05, t_arr, t_arr + 0.01, pose, end, end, True))
            self.timeline.placements.append(Placement(t_arr + 0.01, c.uid, "remove"))
        self.at(t_arr + 0.05, self._free, hi)

    def _take_back_after(self, t: float, h: Hand, move: dict[str, Any], linger_s: float = 0.3) -> None:
        """The card touched but does not stay: it lies there a moment (``linger_s``), then its owner
        takes it back."""
        c: PCard = move["card"]
        self.inflight.pop(h.index, None)
        self._return_logical(h, c, move["src"])
        f = self._foundation(move["fid"])
        self._place_found(move["t_contact"] + 0.1, c, f, move["final"])  # type: ignore[arg-type]
        t_back = max(move["t_rel"], t + linger_s) + self.rng.uniform(0.05, 0.25)
        self._lift(t_back, c)
        # keep the hand at the pile until it takes the card back
        h.track.keys = [k for k in h.track.keys if k[0] <= move["t_rel"]]
        h.track._times = [k[0] for k in h.track.keys]
        h.pos = move["contact"][:2]
        self._hand_move(h, move["t_rel"], [(t_back, move["final"][:2])])
        self.at(t_back, self._take_back, h.index, c, move["src"], move["final"])

    def _take_back(self, t: float, hi: int, c: PCard, src: str, pose: tuple[float, float, float]) -> None:
        h = self.hands[hi]
        self._return_card(t, h, c, src, pose, t, logical=False)

    def _evict(self, t: float, f: Foundation, c: PCard, hi: int) -> None:
        """A tied card that must leave the pile (tie_rule neither_stays/replay): it goes to its
        owner's waste, the way a player drops a returned card on their own layout."""
        h = self.hands[hi]
        lay = self.layouts[h.deck]
        lay.waste.append(c)
        if c.joker:
            c.declared = None
        n = len(lay.waste)
        t_back = t + 0.4
        self._lift(t_back, c)
        self._place(t_back + 0.35, c, h.deck, "waste", n - 1, n)

    # --- staged disputes ---------------------------------------------------------------------
    def _try_stage(self, t: float) -> None:
        if self.over or not self.pending_gaps:
            return
        if self.staging is None:
            plan = self._find_staging(t)
            if plan is not None:
                self.staging = plan
                f = plan["f"]
                f.reserved_by = -1
                for hi in plan["hands"]:
                    self.hands[hi].scripted = True
                self._staging_progress(t)
        self.at(t + (self.cfg.dispute_every_s if self.staging else 1.0), self._try_stage)

    def _find_staging(self, t: float) -> dict[str, Any] | None:
        """A foundation and two players (different decks) who both hold a card for its next spot
        hidden in their stock (face down, so it can be ordered to come up next unseen)."""
        rule = self.rules.foundation_rule
        gap = self.pending_gaps[0]
        fs = [f for f in self.foundations if f.groups and not f.complete and f.reserved_by is None
              and f.top is not None and f.top.rank < 13
              and not any(m.get("fid") == f.fid for m in self.inflight.values())]
        self.rng.shuffle(fs)
        for f in fs:
            owners: list[tuple[int, PCard]] = []
            seen_decks: set[int] = set()
            for h in sorted(self.hands, key=lambda x: self.rng.random()):
                lay = self.layouts[h.deck]
                if h.deck in seen_decks or h.scripted or not lay.nerts:
                    continue
                cands = [c for c in lay.stock if c.card is not None and fits(c.card, f.top, rule)]
                if cands:
                    owners.append((h.index, cands[0]))
                    seen_decks.add(h.deck)
                if len(owners) == 2:
                    return {"f": f, "pile": f.fid, "card": str(owners[0][1].card), "gap": gap,
                            "hands": [o[0] for o in owners], "cards": [o[1] for o in owners], "step": "wait"}
        return None

    def _staging_progress(self, t: float) -> None:
        st = self.staging
        if st is None:
            return
        if self.call_t is not None or self.end_t is not None:
            self._cancel_staging(t)
            return
        hands = [self.hands[i] for i in st["hands"]]
        if st["step"] == "wait":
            if any(h.busy for h in hands):
                return  # _free calls back when each hand is done
            # rig each stock so the contested card is the next to come up, then play it
            for h, c in zip(hands, st["cards"]):
                lay = self.layouts[h.deck]
                if c not in lay.stock:
                    self._cancel_staging(t)
                    return
                lay.stock.remove(c)
                k = min(self.rules.stock_turn, len(lay.stock) + 1)
                lay.stock.insert(len(lay.stock) - (k - 1), c)
            st["step"] = "turn"
            for h in hands:
                self._execute(h, t + h.reaction(self.rng) * 0.6, {"kind": "turn"})
            return
        if st["step"] == "turn":
            if any(h.busy for h in hands):
                return
            f: Foundation = st["f"]
            gap = st["gap"] / 1000.0
            order = [0, 1] if self.rng.random() < 0.5 else [1, 0]
            first, second = hands[order[0]], hands[order[1]]
            c_first, c_second = st["cards"][order[0]], st["cards"][order[1]]
            for h, c in ((first, c_first), (second, c_second)):
                if self.layouts[h.deck].waste[-1:] != [c]:
                    self._cancel_staging(t)
                    return
            spot = self.layout.foundation_slots[f.slot]

            def earliest(h: Hand, c: PCard, t_dec: float) -> float:
                p = self._pose_of(c)[:2]
                return t_dec + h.travel(h.pos, p) + 0.14 + h.travel(p, spot)

            tf = t + 0.35
            e1, e2 = earliest(first, c_first, tf), earliest(second, c_second, tf)
            t_first = max(e1, e2 - gap) + 0.05
            st["step"] = "play"
            st["t_first"] = t_first
            for h, c, tc in ((first, c_first, t_first), (second, c_second, t_first + gap)):
                h.scripted = True
                self._execute(h, tf, {"kind": "found", "src": "waste", "cards": [c], "target": f}, contact_at=tc)
            # the contest resolves at contact; release everybody after it
            self.at(t_first + gap + 0.01, self._end_staging)
            return

    def _end_staging(self, t: float) -> None:
        st = self.staging
        if st is None:
            return
        self.pending_gaps.pop(0)
        self.staging = None
        st["f"].reserved_by = None
        for hi in st["hands"]:
            h = self.hands[hi]
            h.scripted = False
            if not h.busy and not self.over:
                self.at(t + h.reaction(self.rng), self._think, hi)

    def _cancel_staging(self, t: float) -> None:
        st = self.staging
        self.staging = None
        if st is None:
            return
        st["f"].reserved_by = None
        for hi in st["hands"]:
            h = self.hands[hi]
            h.scripted = False
            if not h.busy and not self.over:
                self.at(t + 0.1, self._think, hi)

    # --- ending ------------------------------------------------------------------------------
    def _call_nerts(self, t: float, h: Hand) -> None:
        if self.call_t is not None or self.over:
            return
        self.call_t = t
        self.caller = h.name
        self.ended_by = "nerts"
        self.truth.append({"type": "nerts_called", "t": round(t, 6), "player": h.name})
        self._end(t + self.call_slack + 0.25)

    def _time_up(self, t: float) -> None:
        if self.end_t is None:
            self.ended_by = "time"
            self._stop_all(t)
            self._end(t)

    def _stop_all(self, t: float) -> None:
        """Hands still carrying a card put it back: nothing touches after the round ends."""
        for hi, move in list(self.inflight.items()):
            if not move.get("touched") and move["t_contact"] >= t:
                self._abort(max(t, move["t_grab"]), self.hands[hi], move)

    def _end(self, t: float) -> None:
        if self.end_t is not None:
            return
        self.end_t = t
        if self.call_t is not None:
            # cards not close enough to contact at the call go back without touching
            for hi, move in list(self.inflight.items()):
                late = move["t_contact"] > self.call_t + self.call_slack or move["t_grab"] >= self.call_t
                if not move.get("touched") and late:
                    self._abort(max(self.call_t, move["t_grab"]), self.hands[hi], move)
        self.at(t, self._mark_over)

    def _mark_over(self, t: float) -> None:
        self.over = True

    def _stuck_check(self, t: float) -> None:
        """Everyone stuck: all agree no one can move even after cycling their stock."""
        if self.end_t is not None:
            return
        all_stuck = all(h.stuck and not h.busy and not h.scripted for h in self.hands)
        if all_stuck and self.staging is None:
            # RULES.md: rotate once and play on; stuck again (or `stuck_rule = end`): the round ends
            self.truth.append({"type": "everyone_stuck", "t": round(t, 6)})
            self.stuck_rounds += 1
            if self.rules.stuck_rule == "end" or self.stuck_rounds >= 2:
                self.ended_by = "stuck"
                self._end(t + 0.5)
                return
            for lay in self.layouts:
                # the waste turned over under what is left of the stock, then top card to the bottom
                cards = lay.waste[::-1] + lay.stock
                lay.stock, lay.waste = [], []
                if cards:
                    cards.insert(0, cards.pop())
                for c in cards:
                    c.face_up = False
                    self._lift(t + 0.4, c)
                lay.stock = cards
                for i, c in enumerate(cards):
                    self._place(t + 0.9, c, lay.deck, "stock", i, len(cards), jitter=0.8)
            self.version += 1
            for h in self.hands:
                h.stuck = False
                h.turns_idle = 0
                h.idle_version = -1
                self.at(t + 1.2 + h.reaction(self.rng), self._think, h.index)
        self.at(t + 0.5, self._stuck_check)

    def _finish_round(self, r: int, t0: float) -> RoundResult:
        centre = {u: 0 for u in self.unit_of_deck}
        for f in self.foundations:
            for c in f.cards:
                centre[self.unit_of_deck[c.deck]] += 1
        left = {u: len(self.layouts[d].nerts) for d, u in enumerate(self.unit_of_deck)}
        rules = self.rules
        scores = {}
        caller_unit = None
        if self.caller is not None:
            caller_unit = self.unit_of_deck[self.hands[[h.name for h in self.hands].index(self.caller)].deck]
        for u in self.unit_of_deck:
            scores[u] = centre[u] * rules.points_per_centre_card - left[u] * rules.penalty_per_nerts_card \
                + (rules.nerts_bonus if u == caller_unit else 0)
        nerts_left: dict[str, int] = {}
        done: set[int] = set()
        for h in self.hands:  # one count per deck (teams: under the first partner's name)
            nerts_left[h.name] = 0 if h.deck in done else len(self.layouts[h.deck].nerts)
            done.add(h.deck)
        assert self.end_t is not None
        self.truth.append({"type": "round_ended", "t": round(self.end_t, 6), "nerts_left": nerts_left})
        return RoundResult(r, t0, self.end_t, self.ended_by, self.caller, centre, left, scores)


def play_game(cfg: GameConfig) -> GameRecord:
    """Simulate a whole game (``cfg.rounds`` rounds) and return its record."""
    return Game(cfg).play()
