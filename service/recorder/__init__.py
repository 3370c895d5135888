"""The recorder: pages for a phone at a real table, to record a game by tapping, never typing JSON.

The table's phone starts a game (the game and the players' names) and records chance's events (deals, refills); a
player may join from their own phone by the QR code of their seat's join link and record their own seat's events
(private draws and peeks), which the table's page does not show. One phone alone may record everything.

Every choice comes from the game's own rules, so nothing here knows one game from another: the seat to move's
legal actions (`legal_actions` of its view), then whatever chance leaves open in the events they become. Those are
found by running the rules' own `resolve`, `chance` or `setup` with a scripted generator (`Script`) whose every draw
(`choice`, `sample`, `shuffle`) takes the cards the person tapped, and the rest in a fixed order: when two fixed
orders give the same events, the taps decided everything and the events are written, through the service's own
writes and rights (a seat's token writes only that seat's events, the table's any). The table is drawn by the game's
render module, the moves told in words by its presentation.

Undo makes a branch before the last event (the log never changes) and the pages follow the newest branch of a game
they show. A spectator's page follows the public view live by the game's event stream.
"""

from loom.service.recorder.routes import router

__all__ = ["router"]
