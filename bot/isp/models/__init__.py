"""Typed requests and records of both generations of the web service."""
