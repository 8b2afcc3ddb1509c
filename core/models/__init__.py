"""Model clients behind the `ModelClient` protocol of the ground floor: Gemini (google-genai, imported
lazily), any OpenAI-compatible server (the `openai` SDK, imported lazily; providers by name), the offline demo
model, retries, the reader of streamed responses, and the edit fixer that asks a model to mend a `replace` that
did not match."""
