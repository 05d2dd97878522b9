"""The arena: the platform around the referee (a Django app: ``models``, ``migrations``; the
command ``python -m arena``), in four rooms — ``road`` (one match's life), ``bots`` (the bot
processes and how bots come in), ``fleet`` (Celery, queues, workers, the processes of a machine)
and ``competitions`` (tournaments, the ladder, ratings, challenges, comparisons)."""
