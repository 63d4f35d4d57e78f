"""Stories: what links two items, the grouping of a day's items into stories and occasions, and a story's answer."""
