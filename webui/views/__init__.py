"""The site's pages, by family: ``home``, ``ladders``, ``bots`` (a bot's page and its owner's
switches), ``uploads`` (new bots: uploaded or remote), ``challenges``, ``comparisons``,
``tournaments``, ``matches`` (a match's page, its replay and live frames), ``accounts``,
``learn`` and ``operator``; what several share in ``common``. Every owner-only view checks
``bot.owner == request.user`` (``common.owned_bot_or_403``). The pages ask the arena for their
data and rules; they never play a match."""
