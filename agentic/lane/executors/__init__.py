"""Where a lane's pairs run besides this process: a local process pool or Ray tasks.
This process runs them with ``runner.run.run_adapters``. The pool (``processes``) and Ray tasks
(``ray_tasks``) both go through ``units``."""
