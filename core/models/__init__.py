"""Model clients behind one protocol: Gemini (google-genai, imported lazily) and the offline demo model."""
