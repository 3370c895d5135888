"""The search bot, `IsmctsBot` (its label is `mcts`): single-observer information-set Monte Carlo tree search
(SO-ISMCTS, Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)).

The tree is over the searcher's information sets: a node is the sequence of actions played since the decision, the
same node whatever the cards the searcher cannot see. The root's actions are the greedy bot's best few, and the
budget is spent on them by sequential halving (the root of H-MCTS and SHOT, Pepels, Cazenave, Winands and Lanctot
2014): over ceil(log2(k)) rounds, each round samples its share of worlds, visits every action still in the running
once in each (the same world and the same random numbers: the comparisons are paired), and keeps the better half
(the greedy bot's choice always kept). At 30-50 iterations the decision is made at the root, and halving gives the
greedy choice and its best challenger about a third of the budget each, where UCB1 spread it almost evenly.
Each visit of a root action is one iteration of SO-ISMCTS in that round's world:
1. ONE determinization: `determinize` deals what the seat cannot see, consistently with its view (shared by the
   root's actions in the running, as said);
2. selection below the root with the actions legal in that determinization: while every legal action of a node has
   a child, the child maximising UCB1 with availability counts, `mean + c * sqrt(ln(available) / visits)`, where
   `available` is the number of the node's visits in which that action was legal (not the node's own visits: an
   action legal only in some determinizations is compared with what it competed with);
3. expansion of one untried legal action: the light policy's choice from the mover's own view of the world (where
   the paper takes one at random: at a few dozen iterations a random reply made every evaluation noisier than the
   policy's playout), a node below the root having at most `widening(visits)` children (progressive widening);
4. playout: the light policy (the game's `Tuning.policy`, a random legal action now and then) plays every seat
   from its own view until `horizon` decisions after the root's (the tree's moves count), and the end is scored: a
   finished game gives each winner its share, blended with a chance to win made from the scores (a softmax), which
   also scores an unfinished one (with `Tuning.promise`, its scores plus what each seat's holdings promise: the
   game's `promise`, a leaf evaluation read from the determinization; with `Tuning.value`, the game's `value`
   instead, each seat's chance to win read from it);
5. backpropagation: each node on the path adds the reward of the seat that moved into it.
A node below the root is keyed by the actions that lead to it, so after a chance event the searcher sees (its own
draw) the node it reaches is the same whatever it drew. With `Tuning.observed` the searcher's own nodes are told
apart by its view there, as the paper's information sets are: a keep grown having drawn other cards is then not
offered to it (off by default: measured in Moirai only, bench/profiles/ismcts.md).
The decision is the best of the last round (the most visited; ties: the better mean), if it beats the greedy bot's
choice over their shared worlds by `confidence` standard errors; else the greedy bot's choice.

The budget is `budget` iterations, or with `Tuning.seconds` a time: each round of halving then has its share of
the time and samples worlds until its end (`Clock`), so two searches can be compared at exactly equal time.

Two enhancements, both from the paper's family: the root searches only the greedy bot's best `candidates` actions
(Stones of Fate offers a hundred stone moves a turn, most pointless; a budget of forty iterations could not even
try them once; with `Tuning.options`, the best of each of the game's options first, off by default: measured in
Moirai only), and chance events inside the tree are sampled, not nodes (a draw is part of the determinization).

The bot sees only its view: `choose` and `search` are handed the view, never the true state, every determinization
is dealt from it, and the playouts' bots see only their own views of the determinization.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from random import Random
from typing import Any

from loom.engine.protocol import CHANCE_TO_MOVE, AnyGame, Bot, Tuning
from loom.events.base import IllegalAction

FEWEST_WORLDS = 4
"""Shared worlds below which a paired comparison says nothing: the greedy bot's choice is played."""
WIDENING = Tuning().widening
"""Progressive widening below the root unless a game's tuning says otherwise: a node visited n times may have
1 + WIDENING * sqrt(n) children."""
EXPLORATION = Tuning().exploration
"""UCB1's constant `c` for rewards in [0, 1] unless a game's tuning says otherwise (Cowling, Powley and Whitehouse's
value)."""


def step(game: AnyGame, state: Any, action: Any, rng: Random) -> Any:
    """The state after a legal `action` and the chance events that follow it, unchecked (playouts only play
    actions that `legal_actions` offered)."""
    apply = game.apply
    for payload in game.resolve(state, action, rng):
        state = apply(state, payload)
    while game.to_move(state) == CHANCE_TO_MOVE:
        state = apply(state, game.chance(state, rng))
    return state


def shares(game: AnyGame, state: Any) -> list[float]:
    """Each seat's share of the victory in a finished game (a shared victory is split)."""
    winners = game.winners(state)
    out = [0.0] * len(game.scores(state))
    for seat in winners:
        out[seat] = 1.0 / len(winners)
    return out


def score_chances(scores: Sequence[float], spread: float) -> list[float]:
    """A chance to win per seat made from the scores: a softmax of the points over `spread`."""
    top = max(scores)
    weights = [math.exp((points - top) / spread) for points in scores]
    total = sum(weights)
    return [weight / total for weight in weights]


def leaf_points(game: AnyGame, state: Any, weight: float) -> Sequence[float]:
    """Each seat's points at the end of an unfinished playout: its score, plus `weight` times what its holdings
    promise (the game's `promise`, read from the playout's state: a determinization dealt from the searcher's view,
    so it knows no card the searcher's view hides). Without a weight or a `promise`, the score alone."""
    scores = game.scores(state)
    if not weight or game.promise is None:
        return scores
    return [points + weight * more for points, more in zip(scores, game.promise(state))]


def widening(visits: int, rate: float = WIDENING) -> int:
    """How many children a node below the root may have after `visits` visits (progressive widening): one at
    first, then slowly more, so the few iterations of a decision deepen the policy's line instead of spreading
    over replies that were tried once each."""
    return 1 + int(rate * math.sqrt(visits))


class Node:
    """A node of the searcher's tree: an information set reached by a sequence of actions from the decision.

    Its statistics are those of the action that leads to it: `visits`, `total` (the sum of the rewards of the seat
    that played that action) and `available` (the parent's visits in which that action was legal)."""

    __slots__ = ("children", "visits", "total", "available", "rewards", "seen")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.rewards: list[float] = []  # a root child's reward in each visit, the k-th in the k-th world
        self.seen: dict[Any, Node] | None = None  # with `Tuning.observed`: the searcher's information sets here

    def information_set(self, view: Any) -> Node:
        """The node of the searcher's information set `view` reached by this node's actions: its decisions there
        are grown apart from those it makes having seen something else (another card drawn), whose legal actions
        and best choices differ. Its `visits` count the iterations that reached it."""
        if self.seen is None:
            self.seen = {}
        node = self.seen.get(view)
        if node is None:
            node = self.seen[view] = Node()
        return node

    def ucb(self, c: float) -> float:
        """UCB1 with the availability count in place of the parent's visits."""
        return self.total / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def select(node: Node, legal: Sequence[Any], c: float = EXPLORATION) -> Any:
    """The action to follow from a node whose every `legal` action has a child: the highest UCB1 with availability
    counts (ties go to the first in legal order). Counts one availability for each legal child."""
    children = node.children
    best, best_value = legal[0], -math.inf
    for action in legal:
        child = children[action]
        child.available += 1
        value = child.ucb(c)
        if value > best_value:
            best, best_value = action, value
    return best


def most_visited(root: Node, order: Sequence[Any]) -> Any:
    """The root's action with the most visits; ties go to the better mean, then to the first in `order`."""
    tried = [(a, root.children[a]) for a in order if a in root.children]
    best = max(range(len(tried)), key=lambda i: (tried[i][1].visits, tried[i][1].total / tried[i][1].visits, -i))
    return tried[best][0]


def decision(root: Node, order: Sequence[Any], confidence: float) -> Any:
    """The root's most visited action if it is the first of `order` (the greedy bot's choice) or beats it by more
    than `confidence` standard errors of their paired differences (the k-th visits of both were played in the same
    world); else the first of `order`. A small budget then plays no worse than greedy."""
    best = most_visited(root, order)
    first = order[0]
    if best == first:
        return best
    gains = [mine - theirs for mine, theirs in zip(root.children[best].rewards, root.children[first].rewards)]
    if len(gains) < FEWEST_WORLDS:
        return first
    mean = sum(gains) / len(gains)
    spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / (len(gains) - 1))
    return best if mean > confidence * spread / math.sqrt(len(gains)) else first


def halving(count: int, budget: int) -> list[tuple[int, int]]:
    """Sequential halving at the root (as in SHOT and H-MCTS): for each round, how many of `count` actions are still
    in the running and how many worlds each of them is visited in. The budget is split evenly over
    ceil(log2(count)) rounds, and each round keeps the better half (rounded up) of the previous one."""
    counts = running(count)
    plan: list[tuple[int, int]] = []
    left = budget
    for done, count in enumerate(counts):
        worlds = max(1, left // ((len(counts) - done) * count))
        plan.append((count, worlds))
        left -= worlds * count
    return plan


def running(count: int) -> list[int]:
    """How many of `count` root actions are in the running in each round of sequential halving: ceil(log2(count))
    rounds, each keeping the better half (rounded up) of the previous one."""
    rounds = max(1, math.ceil(math.log2(count))) if count > 1 else 0
    out = []
    for _ in range(rounds):
        out.append(count)
        count = math.ceil(count / 2)
    return out


class Clock:
    """A time budget split over the rounds of sequential halving: round r of n ends at `seconds * (r + 1) / n`
    after the start. A round samples worlds until its end, at least one; another world is begun only if it would
    end nearer the round's end than not beginning it (the last world's cost is the estimate)."""

    def __init__(self, seconds: float, rounds: int, now: Callable[[], float]) -> None:
        self.seconds, self.rounds, self.now = seconds, rounds, now
        self.began = now()

    def worlds(self, done: int) -> Iterator[None]:
        """One item per world that round `done` (from 0) samples, the time being read between worlds."""
        end = self.began + self.seconds * (done + 1) / self.rounds
        before = self.now()
        yield None
        while True:
            after = self.now()
            if after + (after - before) / 2 >= end:
                return
            before = after
            yield None


def cut(root: Node, alive: Sequence[Any], count: int) -> list[Any]:
    """The `count` root actions to keep of `alive` (in their order): the first (the greedy bot's choice, what the
    search must beat) and the others with the best total reward (all were visited in the same worlds)."""
    if len(alive) <= count:
        return list(alive)
    children = root.children
    others = sorted(alive[1:], key=lambda a: -children[a].total)[: count - 1]
    return [a for a in alive if a == alive[0] or a in others]


def best_first(ranker: Bot, view: Any, legal: Sequence[Any], count: int, rng: Random) -> list[Any]:
    """The `count` legal actions `ranker` likes best, best first (each chosen from those it has not yet taken)."""
    left: list[Any] = list(legal)
    out: list[Any] = []
    while left and len(out) < count:
        best = ranker.choose(view, left, rng)
        out.append(best)
        left.remove(best)
    return out


def each_option_first(
    ranker: Bot, view: Any, legal: Sequence[Any], option: Callable[[Any], Any], count: int, rng: Random
) -> list[Any]:
    """The `count` legal actions `ranker` likes best, best first, its best of each `option` before any second best
    of one: the same first action as `best_first`."""
    kinds: dict[Any, list[Any]] = {}
    for action in legal:
        kinds.setdefault(option(action), []).append(action)
    heads = [actions[0] if len(actions) == 1 else ranker.choose(view, actions, rng) for actions in kinds.values()]
    place = {action: index for index, action in enumerate(legal)}
    heads.sort(key=place.__getitem__)  # in legal order, as the ranker saw them: its ties go the same way
    order = best_first(ranker, view, heads, count, rng)
    chosen = set(order)
    return order + best_first(ranker, view, [a for a in legal if a not in chosen], count - len(order), rng)


class IsmctsBot:
    """The `mcts` bot: SO-ISMCTS with `budget` iterations per decision (or, when its tuning says `seconds`, as many
    as that time allows), one determinization each, from its seat's view only. `now` is the clock of a time budget."""

    def __init__(
        self,
        game: AnyGame,
        budget: int | None = None,
        tuning: Tuning | None = None,
        now: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.game = game
        self.tuning = tuning or game.search
        self.budget = budget or self.tuning.budget
        self.seconds = 0.0 if budget else self.tuning.seconds  # a number of iterations asked for wins over a time
        self.now = now
        self.ranker: Bot = game.bots["greedy"]()
        self.policy: Bot = game.bots[self.tuning.policy]()

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        """The most visited of the root's actions after `budget` iterations."""
        if len(legal) == 1:
            return legal[0]
        order = self.candidates(view, legal, Random(rng.getrandbits(64)))
        if len(order) == 1:
            return order[0]
        return decision(self.search(view, order, rng), order, self.tuning.confidence)

    def candidates(self, view: Any, legal: Sequence[Any], rng: Random) -> list[Any]:
        """The greedy bot's best few legal actions, best first: the root's actions, in the order they are tried.
        With `Tuning.options` (and a game that names its options), the greedy bot's best action of each option
        comes first, best first, and only then its next best: the root compares taking a pile with drawing, not six
        ways of placing one pile's cards, which a few dozen playouts cannot tell apart."""
        count, option = self.tuning.candidates, self.game.option
        if not self.tuning.options or option is None:
            return best_first(self.ranker, view, legal, count, rng)
        return each_option_first(self.ranker, view, legal, option, count, rng)

    def search(self, view: Any, actions: Sequence[Any], rng: Random) -> Node:
        """The tree grown by `budget` iterations from the seat to move's `view`, the root's actions being `actions`
        (the greedy bot's best first), spent by sequential halving at the root (`halving`): in each round, every
        action still in the running is visited once in each of that round's worlds, with the same random numbers,
        then the worse half is dropped (the first action always kept); below the root, UCB1 with availability
        counts over the actions legal in the iteration's determinization."""
        game = self.game
        seat = game.to_move(view)
        if seat is None or seat == CHANCE_TO_MOVE:
            raise IllegalAction("the search bot decides for the seat to move, and no seat is to move here")
        root = Node()
        alive = list(actions)
        for action in alive:
            root.children[action] = Node()
        for count, worlds in self.plan(len(alive)):
            alive = cut(root, alive, count)
            for _ in worlds:
                seed = rng.getrandbits(64)
                world = game.determinize(view, seat, Random(seed))
                for action in alive:  # the same world and the same random numbers for each: a paired comparison
                    node = root.children[action]
                    node.available += 1
                    self.iterate(world, seat, action, node, Random(seed))
        for action in list(root.children):
            if root.children[action].visits == 0:
                del root.children[action]
        return root

    def plan(self, count: int) -> list[tuple[int, Iterable[Any]]]:
        """The rounds of sequential halving over `count` root actions: how many are in the running, and the worlds
        each round samples (a number of them under an iteration budget, as many as fit under a time budget)."""
        if self.seconds <= 0:
            return [(alive, range(worlds)) for alive, worlds in halving(count, self.budget)]
        counts = running(count)
        clock = Clock(self.seconds, len(counts), self.now)
        return [(alive, clock.worlds(done)) for done, alive in enumerate(counts)]

    def iterate(self, world: Any, seat: int, action: Any, node: Node, play: Random) -> None:
        """One iteration below the root action `action` (whose node is `node`) in the determinization `world`:
        selection, expansion, playout and backpropagation; the root child keeps the seat's reward of each visit."""
        game, tuning = self.game, self.tuning
        to_move, legal_actions, view_of = game.to_move, game.legal_actions, game.view
        state = step(game, world, action, play)
        path = [node]
        movers = [seat]
        sets: list[Node] = []
        expanded = node.visits == 0  # a new root child: its playout starts here
        while not expanded and (mover := to_move(state)) is not None:
            if mover == seat and tuning.observed:
                node = node.information_set(view_of(state, seat))
                sets.append(node)
            legal = legal_actions(state)
            children = node.children
            present = [a for a in legal if a in children]
            if mover != seat and tuning.policy_replies:
                # their reply in this world, from their own view of it: a node grown in another world would make
                # them play as if they held that world's cards
                chosen = self.expand(view_of(state, mover), legal, play)
                expanded = chosen not in children
                node = children.setdefault(chosen, Node())
            elif len(present) < len(legal) and len(present) < widening(node.visits, tuning.widening):
                # expansion: the light policy's choice, from the mover's view of this world, among the untried
                untried = [a for a in legal if a not in children]
                chosen = self.expand(view_of(state, mover), untried, play)
                for other in present:
                    children[other].available += 1
                node = children[chosen] = Node()
                node.available = 1
                expanded = True
            else:
                chosen = select(node, present, tuning.exploration)
                node = children[chosen]
            path.append(node)
            movers.append(mover)
            state = step(game, state, chosen, play)
        rewards = self.playout(state, play, tuning.horizon - len(path) + 1)  # the tree's moves count too
        path[0].rewards.append(rewards[seat])
        for visited, who in zip(path, movers):
            visited.visits += 1
            visited.total += rewards[who]
        for visited in sets:
            visited.visits += 1

    def expand(self, seen: Any, untried: Sequence[Any], rng: Random) -> Any:
        """The untried action a node grows first: the light policy's choice from the mover's own view (now and then
        a random one), so a node's first visits are the playouts the policy would have played."""
        if len(untried) > 1 and rng.random() >= self.tuning.explore:
            return self.policy.choose(seen, untried, rng)
        return untried[rng.randrange(len(untried))]

    def playout(self, state: Any, rng: Random, horizon: int) -> list[float]:
        """The light policy for at most `horizon` decisions from `state`; each seat's reward."""
        game, tuning, policy = self.game, self.tuning, self.policy
        to_move, view, legal_actions, explore = game.to_move, game.view, game.legal_actions, tuning.explore
        for _ in range(horizon):
            mover = to_move(state)
            if mover is None:
                break
            seen = view(state, mover)
            legal = legal_actions(seen)
            if len(legal) > 1 and rng.random() >= explore:
                chosen = policy.choose(seen, legal, rng)
            else:
                chosen = legal[rng.randrange(len(legal))]
            state = step(game, state, chosen, rng)
        if to_move(state) is not None:
            if tuning.value and game.value is not None:
                return game.value(state)
            return score_chances(leaf_points(game, state, tuning.promise), tuning.spread)
        chances = score_chances(game.scores(state), tuning.spread)
        won = shares(game, state)
        return [(1 - tuning.blend) * w + tuning.blend * c for w, c in zip(won, chances)]
