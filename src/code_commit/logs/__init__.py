"""The run folder under agent-config/logs/: its names, its numbered files, retention."""
