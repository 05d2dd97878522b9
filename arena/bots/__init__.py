"""The bots: the processes that play seats and the rows that bring bots in — warm pools of bot
processes (``warm_pool``), the worker's keeper of shared house-bot processes and cores
(``keeper``, ``keeper_client``, ``cores``), sandboxes left by dead workers (``sandbox_reaper``),
the house bots as entrants (``house_entrants``) and an uploaded version's way in (``uploads``)."""
