"""What every surface answers: the chat, the read queries, the digest."""
