"""The diff room: hunks read from a change, the line view with word marks, and the FileDiff display built on it
(the review modal in screens/diff_review.py uses the same view)."""
