"""A bot that logs 3,000 lines at every decision: the SDK keeps it within the referee's log rate
(tests/test_referee_hardening.py)."""
from bots_sdk import RandomBot


class ChattyBot(RandomBot):
    def decide(self, decision):
        for i in range(3000):
            self.log(f"thinking {i}")
        return super().decide(decision)
