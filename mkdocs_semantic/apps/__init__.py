"""What runs over a built bundle: the command line (`cli`), the HTTP service (`service`,
with `limits` on connections), the MCP server (`mcp_server`), sources from URLs
(`sources`) and relevance evaluation (`evaluate`)."""
