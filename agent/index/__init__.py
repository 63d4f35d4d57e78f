"""The topic index: the store's snapshot made into the ranker's index and the stories, with the model it loads."""
