"""The generic stdio MCP adapter and its product profiles.

- ``process``: one isolated child process (environment, spawn, bounded pipes, group kill);
- ``client``: a synchronous, deadline-bounded MCP client over that process (mcp SDK v2);
- ``profile``: the data a product profile declares; ``results``: checks shared by parsers;
- ``reference`` (``mcp-reference``, our ``agentic serve``) and ``gno`` (``gno-mcp``): profiles;
- ``profiles.profile_by_id``; ``adapter.McpAdapter``: the adapter protocol over a profile.
"""
