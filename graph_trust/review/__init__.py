"""The review side: what the sync job hands the demo and the evaluation (``hooks``)."""
