"""Collecting: each source's schedule, the fetch of its hot list, the job locks between instances,
the replay transport."""
