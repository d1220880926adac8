"""Graph access: schema set-up and backend differences that search and sync build on."""
