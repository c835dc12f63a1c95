revision = "0002"
