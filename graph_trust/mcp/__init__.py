"""The MCP server (``graph-trust mcp``): search, context and the confidence tools for agents,
with the clearance fixed by the server's configuration."""
