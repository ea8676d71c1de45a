"""Files in and out: the one atomic writer, CSV cells safe in a spreadsheet, the user's
tables and scores files, cache folders, checksummed downloads from the registry, and the
restricted unpickler of published pickles."""
