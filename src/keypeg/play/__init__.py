"""Playing with people: computer levels, the coach, and an adversarial codemaker."""
