"""lichess's Python client (berserk) against this service: its challenge, board and bot calls, as a program written
for lichess.org makes them, with only the base URL changed. Run by test/clients/realClients.test.ts with
BASE_URL and the tokens ANN, BOB (people) and BOT (a bot) in the environment; prints one JSON object a line per
call ({"call", "ok", "answer" or "error"}) and the stream lines it read, and exits 0 when every call answered as
lichess would.
"""
import json
import os
import sys
import threading

import berserk

base = os.environ["BASE_URL"]
ann = berserk.Client(berserk.TokenSession(os.environ["ANN"]), base_url=base)
bob = berserk.Client(berserk.TokenSession(os.environ["BOB"]), base_url=base)
bot = berserk.Client(berserk.TokenSession(os.environ["BOT"]), base_url=base)
failures = []


def call(name, fn, refused=None):
    """Makes one call; `refused`: the error code lichess's rules give (the call must fail with it)."""
    try:
        answer = fn()
        if refused:
            failures.append(name)
        print(json.dumps({"call": name, "ok": not refused, "answer": answer}, default=str), flush=True)
        return answer
    except berserk.exceptions.ResponseError as error:
        ok = refused is not None and refused in str(error)
        if not ok:
            failures.append(name)
        print(json.dumps({"call": name, "ok": ok, "error": str(error)}, default=str), flush=True)
        return None


def follow(client, game_id, into):
    for line in client.board.stream_game_state(game_id):
        into.append(line)


call("account.get", lambda: ann.account.get())
call("account.get (bot)", lambda: bot.account.get())

# A challenge between people, played on the Board API.
challenge = call("challenges.create", lambda: ann.challenges.create("bob", rated=False, clock_limit=180, clock_increment=2, color="white"))
call("challenges.get_mine", lambda: bob.challenges.get_mine())
call("challenges.accept", lambda: bob.challenges.accept(challenge["id"]))
game = challenge["id"]
lines = []
follower = threading.Thread(target=follow, args=(bob, game, lines), daemon=True)
follower.start()
call("board.make_move", lambda: ann.board.make_move(game, "e2e4"))
call("board.make_move (reply)", lambda: bob.board.make_move(game, "e7e5"))
call("board.post_message", lambda: ann.board.post_message(game, "good luck"))
call("board.get_game_chat", lambda: bob.board.get_game_chat(game))
call("board.offer_takeback", lambda: bob.board.offer_takeback(game))
call("board.decline_takeback", lambda: ann.board.decline_takeback(game))
call("board.offer_draw", lambda: ann.board.offer_draw(game))
call("board.decline_draw", lambda: bob.board.decline_draw(game))
call("board.handle_draw_offer", lambda: ann.board.handle_draw_offer(game, True))
call("board.handle_draw_offer (no)", lambda: bob.board.handle_draw_offer(game, False))
call("board.claim_victory (opponent present)", lambda: ann.board.claim_victory(game), refused="CLAIM_NOT_AVAILABLE")
call("board.resign_game", lambda: bob.board.resign_game(game))
follower.join(10)
print(json.dumps({"stream": [line.get("type") for line in lines], "last": lines[-1] if lines else None}, default=str), flush=True)
if not lines or lines[-1].get("status") != "resign":
    failures.append("board.stream_game_state")

# Open and computer challenges.
call("challenges.create_open", lambda: ann.challenges.create_open(clock_limit=300, clock_increment=3))
ai = call("challenges.create_ai", lambda: ann.challenges.create_ai(level=1, clock_limit=600, clock_increment=5, color="white"))
if ai:
    call("board.abort_game", lambda: ann.board.abort_game(ai["id"]))

# A bot on the Bot API.
to_bot = call("challenges.create (to the bot)", lambda: ann.challenges.create("botty", rated=False, clock_limit=60, clock_increment=1, color="black"))
call("bots.accept_challenge", lambda: bot.bots.accept_challenge(to_bot["id"]))
call("bots.make_move", lambda: bot.bots.make_move(to_bot["id"], "e2e4"))
call("bots.post_message", lambda: bot.bots.post_message(to_bot["id"], "hello"))
call("board.make_move (against the bot)", lambda: ann.board.make_move(to_bot["id"], "e7e5"))
call("bots.handle_draw_offer", lambda: bot.bots.handle_draw_offer(to_bot["id"], False))
call("bots.handle_takeback_offer", lambda: bot.bots.handle_takeback_offer(to_bot["id"], False))
call("bots.resign_game", lambda: bot.bots.resign_game(to_bot["id"]))
declined = call("challenges.create (to decline)", lambda: ann.challenges.create("botty", rated=False, clock_limit=60, clock_increment=0))
call("bots.decline_challenge", lambda: bot.bots.decline_challenge(declined["id"]))
call("bots.make_move (a person on the Bot API)", lambda: ann.bots.make_move(to_bot["id"], "d7d5"), refused="FORBIDDEN")

# Declines and cancels.
correspondence = call("challenges.create (days)", lambda: bob.challenges.create("ann", rated=False, days=2))
call("challenges.decline", lambda: ann.challenges.decline(correspondence["id"], reason="later"))
again = call("challenges.create (to cancel)", lambda: bob.challenges.create("ann", rated=False, clock_limit=300, clock_increment=0))
call("challenges.cancel", lambda: bob.challenges.cancel(again["id"]))

# The event stream's first line.
events = []
reader = threading.Thread(target=lambda: events.append(next(iter(bob.board.stream_incoming_events()))), daemon=True)
ann_challenge = call("challenges.create (for the event stream)", lambda: ann.challenges.create("bob", rated=False, clock_limit=300, clock_increment=0))
reader.start()
reader.join(10)
print(json.dumps({"events": [event.get("type") for event in events]}), flush=True)
if [event.get("type") for event in events] != ["challenge"]:
    failures.append("board.stream_incoming_events")

print(json.dumps({"failures": failures}), flush=True)
sys.exit(1 if failures else 0)
