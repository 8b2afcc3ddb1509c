"""The agent core: tool API, registry, scheduler, turn loop, model clients, config. Never imports Textual."""
