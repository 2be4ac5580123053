"""Programs the tests start as child processes (``python PATH ARGS``): fake and faulty servers,
and a writer to kill mid-write. They are run as scripts, not imported."""
