"""The fleet: the Celery app and its tasks, the broker, the queues and where a match's task goes
(``routing``, remote bots' ``presence_board``), the workers' heartbeats and upkeep, the
reconciler, the operator's status, the referees' token verifier, and the processes of a machine
(``processes``, ``supervise``)."""
