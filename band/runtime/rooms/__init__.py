"""One room's turns: its execution, what a turn is built from (context, history, participants,
events), the delivery's settlement, the owed-answer re-check and the working indicator."""
