"""People at the table: a signed-in person plays a seat in the browser, on the one road.

The referee sees an ordinary seat. On the worker, a seat relay (``relay.py``) plays it like a bot:
each decision the referee sends is published to Redis (``bridge.py``) and the person's answer is
awaited there; the web reads the decision and posts the answer through ``tables.py``, never
speaking gRPC nor importing the referee. ``tables.py`` also seats a person against house bots.
"""
