"""The runner: schedules, lifecycles (cold/warm), the trial loop, receipts."""
