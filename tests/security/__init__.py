"""Issue 12's proof: hostile input gets a one-line refusal with nothing written, and no door shows a seat a card it
could not see at the table."""
