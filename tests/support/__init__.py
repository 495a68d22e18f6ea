"""Test support shared by every suite: the scripted model server and its script builders."""
