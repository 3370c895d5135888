"""The greedy policies and the rules functions they lean on, as they were before they were made cheaper (issue 16,
piece `policies`): test-only references for tests/unit/test_policies_same.py."""
