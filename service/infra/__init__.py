"""What every layer stands on: settings from the environment (``config``), errors as problem details with a
stable code (``problems``), every Redis client the service makes (``connections``), the embedded Redis-compatible
server (``embedded``), and how processes start and stop (``processes``).

It imports nothing else of the service; everything else may import it.
"""
