"""A random bot that takes its time (so a test can kill it mid-match)."""
import time

from bots_sdk import RandomBot


class SlowBot(RandomBot):
    def decide(self, decision):
        time.sleep(0.3)
        return super().decide(decision)
