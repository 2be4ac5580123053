"""Where a lane's pairs run: this process (``local``), a local process pool or Ray tasks.
The pool (``processes``) and Ray tasks (``ray_tasks``) both go through ``units``, whose workers
run their pairs with the local executor."""
