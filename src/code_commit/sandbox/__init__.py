"""The build sandbox: bubblewrap, what a build is given and withheld, and its resource limits."""
