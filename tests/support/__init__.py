"""What the tests share: real servers and broken ones, the command, files the user writes."""
