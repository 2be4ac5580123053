"""Where a lane's pairs run besides this process (``runner.run.run_adapters``): a local
process pool (``processes``) and Ray tasks (``ray_tasks``), both through ``units``."""
